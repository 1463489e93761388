package gubernatorcheck

import (
	"context"
	"fmt"
	"net"
	"os"
	"testing"
	"time"

	guber "github.com/gubernator-io/gubernator/v2"
	"github.com/gubernator-io/gubernator/v2/cluster"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"ratelab/deploy"
)

// The cluster: four of Gubernator's daemons on loopback (GlobalSyncWait
// 50 ms, as cluster.StartWith sets it), started once for every test (the
// cluster package keeps one set of daemons; the tests' limits have names of
// their own), and a client of each.
var (
	addrs   []string
	clients []guber.V1Client
)

func TestMain(m *testing.M) {
	code, err := withCluster(4, m.Run)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// withCluster starts n daemons on free loopback ports, runs run, and stops
// them, waiting at most 10 s: a daemon's gRPC GracefulStop waits for its
// peers' connections, and after GLOBAL traffic one can wait on another's;
// the process ends them all when it exits.
func withCluster(n int, run func() int) (int, error) {
	var peers []guber.PeerInfo
	for range n {
		grpcAddr, err := freeAddr()
		if err != nil {
			return 0, err
		}
		httpAddr, err := freeAddr()
		if err != nil {
			return 0, err
		}
		peers = append(peers, guber.PeerInfo{GRPCAddress: grpcAddr, HTTPAddress: httpAddr})
	}
	return startAndRun(peers, run)
}

// freeAddr is a free loopback address.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func startAndRun(peers []guber.PeerInfo, run func() int) (int, error) {
	if err := cluster.StartWith(peers); err != nil {
		return 0, err
	}
	var conns []*grpc.ClientConn
	for _, p := range cluster.GetPeers() {
		conn, err := grpc.NewClient(p.GRPCAddress, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return 0, err
		}
		conns = append(conns, conn)
		addrs, clients = append(addrs, p.GRPCAddress), append(clients, guber.NewV1Client(conn))
	}
	code := run()
	for _, c := range conns { // before the daemons: their graceful stop waits for connections
		c.Close()
	}
	done := make(chan struct{})
	go func() {
		cluster.Stop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		fmt.Fprintln(os.Stderr, "Gubernator's daemons had not stopped after 10 s (gRPC's graceful stop waits for peer connections); they end with the process")
	}
	return code, nil
}

// hit sends hits of name/key with GLOBAL to a client and returns its answer.
func hit(t *testing.T, c guber.V1Client, name, key string, hits, limit int64, duration time.Duration) *guber.RateLimitResp {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := c.GetRateLimits(ctx, &guber.GetRateLimitsReq{Requests: []*guber.RateLimitReq{{
		Name: name, UniqueKey: key, Hits: hits, Limit: limit, Duration: duration.Milliseconds(),
		Algorithm: guber.Algorithm_TOKEN_BUCKET, Behavior: guber.Behavior_GLOBAL}}})
	if err != nil {
		t.Fatal(err)
	}
	if e := r.Responses[0].Error; e != "" {
		t.Fatalf("%s/%s: %s", name, key, e)
	}
	return r.Responses[0]
}

// The owner of a key is the same peer in ratelab's model of Gubernator's ring
// as in the real cluster (the answer's owner metadata).
func TestOwnersAreGubernators(t *testing.T) {
	for i := range 40 {
		key := "k" + string(rune('a'+i%26)) + time.Duration(i).String()
		r := hit(t, clients[i%len(clients)], "owners", key, 0, 10, time.Minute)
		want := deploy.GubernatorOwner(addrs, "owners_"+key)
		got := r.Metadata["owner"]
		if got == "" { // the owner answers without the metadata: it was asked itself
			got = addrs[i%len(addrs)]
		}
		if got != want {
			t.Errorf("key %s: the cluster's owner is %s, ratelab's ring says %s", key, got, want)
		}
	}
}
