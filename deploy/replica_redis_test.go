package deploy

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ratelab/internal/redistest"
)

// The replicated store checked on a real Redis and its replica (redis-server
// --replicaof on loopback). A key's count for a fixed window is a Redis
// string named after the key and the window's index, as GitHub's limiter
// keeps it; the test drives the real pair request by request on the virtual
// clock and asks the model the same, decision by decision.

// windowLimit is the policy of both tests: 5 a second, fixed windows.
const windowLimit, windowPeriod = 5, time.Second

// realTraffic is n requests over three keys, about 30 a second in all, from a
// fixed seed.
func realTraffic(n int) (at []time.Duration, keys []string) {
	r := rand.New(rand.NewPCG(34, 2021))
	var t time.Duration
	for range n {
		t += time.Duration(r.ExpFloat64() * float64(33*time.Millisecond)).Truncate(time.Microsecond)
		at, keys = append(at, t), append(keys, []string{"a", "b", "c"}[r.IntN(3)])
	}
	return at, keys
}

func windowKey(prefix, key string, at time.Duration) string {
	return fmt.Sprintf("%s:%s:%d", prefix, key, at/windowPeriod)
}

// admitOnPrimary is the central store's decision as a script on the primary:
// the window's count and the request, within the limit, counted at once.
var admitOnPrimary = redis.NewScript(`
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n + 1 > tonumber(ARGV[1]) then return 0 end
redis.call('INCRBY', KEYS[1], 1)
redis.call('PEXPIRE', KEYS[1], 600000)
return 1`)

// waitReplica waits until the replica has every write the primary made on c
// (WAIT 1): replication with no lag.
func waitReplica(t *testing.T, ctx context.Context, c *redis.Client) {
	t.Helper()
	if n, err := c.Wait(ctx, 1, 5*time.Second).Result(); err != nil || n != 1 {
		t.Fatalf("WAIT 1: %d replicas acknowledged (%v)", n, err)
	}
}

// redisPair starts a Redis primary and its replica for t, with a client of
// each (closed when t ends) and a prefix for the test's keys.
func redisPair(t *testing.T, name string) (primary *redistest.Server, pc, rc *redis.Client, prefix string) {
	primary = redistest.Start(t)
	replica := redistest.StartReplica(t, primary)
	pc, rc = primary.Client(), replica.Client()
	t.Cleanup(func() { pc.Close(); rc.Close() })
	return primary, pc, rc, fmt.Sprintf("ratelab-%s-%d", name, time.Now().UnixNano())
}

// Replica reads with a replica that has every write before the next read
// (WAIT after each) decide as the model with no lag: the count GET from the
// replica, the admission INCRBY on the primary.
func TestReplicaReadsOnARealReplica(t *testing.T) {
	_, pc, rc, prefix := redisPair(t, "replica")
	ctx := context.Background()

	model := mustNew(t, Config{Protocol: ReplicaReads, Instances: 3, Replicated: true, New: fixedWindow(windowLimit, windowPeriod)})
	at, keys := realTraffic(1500)
	admitted := 0
	for i := range at {
		k := windowKey(prefix, keys[i], at[i])
		n, err := rc.Get(ctx, k).Int64()
		if err != nil && err != redis.Nil {
			t.Fatal(err)
		}
		real := n+1 <= windowLimit
		if real {
			admitted++
			if err := pc.IncrBy(ctx, k, 1).Err(); err != nil {
				t.Fatal(err)
			}
			pc.PExpire(ctx, k, 10*time.Minute)
			waitReplica(t, ctx, pc)
		}
		if want, _ := model.Decide(i%3, keys[i], at[i], 1); want.Allowed != real {
			t.Fatalf("request %d (%s at %s): the real replica read %d and admitted %v; the model %v", i, keys[i], at[i], n, real, want.Allowed)
		}
	}
	if admitted == 0 || admitted == len(at) {
		t.Fatalf("admitted %d of %d: the traffic never met the limit or never got through", admitted, len(at))
	}
	t.Logf("%d requests, %d admitted, every decision the model's", len(at), admitted)
}

// A failover to a replica that stopped replicating lag before it loses the
// writes of the lag, and only those: the pair runs the central store's script
// on the primary (WAIT after each write) until lag before the failover, when
// the replica is cut off (REPLICAOF NO ONE: it keeps what it had); the primary
// decides on until the failover, when it is killed and the replica decides. The
// model with that lag decides every request as the real pair did, before and
// after.
func TestFailoverOnARealReplica(t *testing.T) {
	primary, pc, rc, prefix := redisPair(t, "failover")
	ctx := context.Background()

	const lag = 700 * time.Millisecond
	failover := 5*time.Second + 400*time.Millisecond // the replica stops at 4.7 s, within the same window
	model := mustNew(t, Config{Protocol: Central, Instances: 2, Replicated: true, ReplicaLag: lag, Failovers: true, New: fixedWindow(windowLimit, windowPeriod)})
	at, keys := realTraffic(400)
	store, cut, failed, lost := pc, false, false, 0
	for i := range at {
		if !cut && at[i] > failover-lag {
			if err := rc.ReplicaOf(ctx, "NO", "ONE").Err(); err != nil {
				t.Fatal(err)
			}
			cut = true
		}
		if !failed && at[i] >= failover {
			primary.Stop()
			model.Failover(failover)
			store, failed = rc, true
		}
		k := windowKey(prefix, keys[i], at[i])
		ok, err := admitOnPrimary.Run(ctx, store, []string{k}, windowLimit).Int()
		if err != nil {
			t.Fatal(err)
		}
		if !cut {
			waitReplica(t, ctx, pc)
		} else if !failed && ok == 1 && at[i]/windowPeriod == failover/windowPeriod {
			lost++
		}
		if want, _ := model.Decide(i%2, keys[i], at[i], 1); want.Allowed != (ok == 1) {
			t.Fatalf("request %d (%s at %s, failover at %s after a lag of %s): the real pair admitted %v, the model %v", i, keys[i], at[i], failover, lag, ok == 1, want.Allowed)
		}
	}
	if !failed || lost == 0 {
		t.Fatalf("the failover lost nothing in its window (failed over: %v): the traffic does not show the lag", failed)
	}
	t.Logf("%d requests; %d admissions of the failover's window lost with the lag, every decision the model's", len(at), lost)
}
