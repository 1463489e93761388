package e2e

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// inLoopbackNamespace runs script with sh in a network namespace of its own
// (unshare -n) whose only device is loopback, brought up first: an address that
// is not on this machine is unreachable from it, so no packet leaves, and a
// bypass of the guard shows as "network is unreachable". It skips (fails in CI)
// where namespaces cannot be made.
func inLoopbackNamespace(t *testing.T, script string) (string, int) {
	t.Helper()
	if out, err := exec.Command("unshare", "-n", "sh", "-c", "ip link set lo up").CombinedOutput(); err != nil {
		if inCI() {
			t.Fatalf("unshare -n: %v: %s (CI runs as root with util-linux and iproute2)", err, out)
		}
		t.Skipf("unshare -n: %v: %s; the guard's tests need a network namespace (root)", err, out)
	}
	cmd := exec.Command("unshare", "-n", "sh", "-c", "ip link set lo up\n"+script)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// The bench guard checks every address it would contact before it connects: the
// URL's host and each &addr= seed of a cluster URL. The old guard checked only
// the first, and sent the load to a remote seed.
func TestBenchGuardChecksEverySeed(t *testing.T) {
	bin := builtRatelab(t)
	for _, tc := range []struct{ url, names string }{
		{"redis://10.11.12.13:6379", "10.11.12.13:6379 (a seed address of the --redis URL) is not on this machine"},
		{"redis://127.0.0.1:7000?cluster=true&addr=10.11.12.13:6379", "10.11.12.13:6379 (a seed address of the --redis URL) is not on this machine"},
		{"redis://127.0.0.1:7000?cluster=true&addr=127.0.0.1:7001&addr=10.11.12.14:7002", "10.11.12.14:7002 (a seed address"},
	} {
		out, code := inLoopbackNamespace(t, fmt.Sprintf("exec %s bench --redis '%s' --duration 10ms", bin, tc.url))
		if code != 2 || !strings.Contains(out, tc.names) || strings.Contains(out, "unreachable") {
			t.Errorf("bench --redis %s: exit %d:\n%s\nwant exit 2 and %q", tc.url, code, out, tc.names)
		}
	}
}

// For a cluster, the guard also checks the cluster's own view of its nodes
// (CLUSTER SLOTS, asked of a seed) before any load: here a real three-master
// cluster whose seed answers on 127.0.0.1 but whose nodes announce 10.99.0.1, an
// address added to the namespace's loopback device, which is not a loopback
// address (protected mode is off for it: the namespace reaches nothing else). The
// old guard passed it, and the benchmark ran against those nodes.
func TestBenchGuardChecksTheClustersNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: forming a three-master cluster in the namespace takes seconds")
	}
	bin := builtRatelab(t)
	if _, err := exec.LookPath("redis-server"); err != nil {
		if inCI() {
			t.Fatal("redis-server is not installed; .ci/run installs it")
		}
		t.Skip("redis-server is not installed")
	}
	dir := t.TempDir()
	script := fmt.Sprintf(`set -e
ip addr add 10.99.0.1/32 dev lo
dir=%s
# the servers run in the namespace's processes, not its network: stop them, and
# wait until they are gone
trap 'for p in 7001 7002 7003; do if [ -f $dir/$p.pid ]; then pid=$(cat $dir/$p.pid); kill $pid; while kill -0 $pid 2>/dev/null; do sleep 0.05; done; fi; done' EXIT
for p in 7001 7002 7003; do
  redis-server --port $p --bind 127.0.0.1 10.99.0.1 --cluster-enabled yes --cluster-announce-ip 10.99.0.1 \
    --cluster-config-file $dir/$p.conf --save '' --appendonly no --protected-mode no --dir $dir --daemonize yes --pidfile $dir/$p.pid >/dev/null
done
for p in 7001 7002 7003; do until redis-cli -p $p ping >/dev/null 2>&1; do sleep 0.05; done; done
redis-cli --cluster create 10.99.0.1:7001 10.99.0.1:7002 10.99.0.1:7003 --cluster-replicas 0 --cluster-yes >/dev/null 2>&1
for i in $(seq 200); do redis-cli -p 7001 cluster info | grep -q cluster_state:ok && break; sleep 0.1; done
redis-cli -p 7001 cluster slots | grep -q 10.99.0.1
set +e
%s bench --redis 'redis://127.0.0.1:7001?cluster=true' --duration 10ms --strategies lua --concurrency 1
echo "exit $?"
`, dir, bin)
	out, _ := inLoopbackNamespace(t, script)
	if !strings.Contains(out, "exit 2") || !strings.Contains(out, "(a node the cluster reports in CLUSTER SLOTS) is not on this machine (10.99.0.1)") || strings.Contains(out, "ratelab bench on") {
		t.Errorf("bench against a cluster whose nodes are not loopback:\n%s\nwant exit 2 naming a node at 10.99.0.1, before any load", out)
	}
}
