package gubernatorcheck

import (
	"context"
	"net"
	"testing"
	"time"

	guber "github.com/gubernator-io/gubernator/v2"
	"github.com/gubernator-io/gubernator/v2/cluster"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"ratelab/deploy"
)

// freeAddr is a free loopback address.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startCluster starts n of Gubernator's daemons on loopback (GlobalSyncWait
// 50 ms, as cluster.StartWith sets it) and returns their gRPC addresses and a
// client of each.
func startCluster(t *testing.T, n int) ([]string, []guber.V1Client) {
	t.Helper()
	var peers []guber.PeerInfo
	for range n {
		peers = append(peers, guber.PeerInfo{GRPCAddress: freeAddr(t), HTTPAddress: freeAddr(t)})
	}
	if err := cluster.StartWith(peers); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	var addrs []string
	var clients []guber.V1Client
	for _, p := range cluster.GetPeers() {
		conn, err := grpc.NewClient(p.GRPCAddress, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() }) // before cluster.Stop: its graceful stop waits for connections
		addrs, clients = append(addrs, p.GRPCAddress), append(clients, guber.NewV1Client(conn))
	}
	return addrs, clients
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
	addrs, clients := startCluster(t, 4)
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
