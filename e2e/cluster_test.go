package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"ratelab/internal/redistest"
)

// On a three-master Redis Cluster nothing ratelab writes stays behind: after a
// run with several Redis lanes, after bench, after SIGINT and SIGHUP mid-run (the
// UI quitting mid-export is tested in ui). The old cleanup sent keys of several
// slots in one UNLINK, got CROSSSLOT, and dropped the error: every run with two
// Redis lanes or more left its keys (6 for boundary-burst), bench 2 or 3.
func TestNoKeysLeftOnACluster(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a three-node cluster takes a few seconds to form")
	}
	c := redistest.StartCluster(t)
	none := func(t *testing.T, after string) {
		t.Helper()
		if left := c.Keys("{ratelab:*"); len(left) != 0 {
			t.Errorf("%d keys left after %s, such as %s", len(left), after, left[0])
		}
	}

	t.Run("run", func(t *testing.T) {
		code, out, errOut := ratelab(t, "run", "--scenario", "boundary-burst", "--redis", c.URL())
		if code != 0 || !strings.Contains(out, "fixed-window: policy exceeded: 2.00× the limit") {
			t.Fatalf("exit %d: %s%s", code, out, errOut)
		}
		none(t, "run")
	})

	t.Run("bench", func(t *testing.T) {
		code, out, errOut := ratelab(t, "bench", "--redis", c.URL(), "--duration", "20ms", "--concurrency", "1,8", "--strategies", "lua,multi")
		if code != 0 {
			t.Fatalf("exit %d: %s%s", code, out, errOut)
		}
		// the report names every node the load went to
		for _, n := range c.Nodes {
			if !strings.Contains(out, n.Addr()) {
				t.Errorf("the report does not name %s:\n%s", n.Addr(), out)
			}
		}
		none(t, "bench")
	})

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			file := scenarioFile(t, dir, retryStorm)
			ch := startChild(t, dir, "run", "--file", file, "--scenario", "s", "--redis", c.URL(), "--csv", "rows.csv")
			ch.waitUntil(t, "keys on the cluster", func() bool { return len(c.Keys("{ratelab:*")) > 0 })
			code, took := ch.signal(t, sig, 10*time.Second)
			if code != 1 || !strings.Contains(ch.stderr.String(), "interrupted by "+interruptedBy[sig]) {
				t.Errorf("exit %d after %v: %s", code, took, ch.stderr.String())
			}
			none(t, sig.String())
			if left := ch.temporaries(); len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}
