package deploy

import (
	"slices"
	"testing"
	"time"

	"ratelab/algorithms"
)

func haproxy100() func() (algorithms.Limiter, error) {
	return func() (algorithms.Limiter, error) {
		return algorithms.NewHAProxy(algorithms.Policy{Limit: 100, Period: time.Minute}, algorithms.TrackBeforeDeny, 0, algorithms.HAProxyRelease{}), nil
	}
}

// haproxyAt is HAProxy's lane of limit per second, tracking before the deny.
func haproxyAt(limit int64) func() (algorithms.Limiter, error) {
	return func() (algorithms.Limiter, error) {
		return algorithms.NewHAProxy(algorithms.Policy{Limit: limit, Period: time.Second}, algorithms.TrackBeforeDeny, 0, algorithms.HAProxyRelease{}), nil
	}
}

// HAProxy's peers across a partition: the pushes between the sides are lost,
// so each side counts alone (A 5, B 3 while apart, with pushes 1 ms long);
// when it heals each side pushes what it touched while apart, and each
// overwrites the other's entry: A reads B's 3, B reads A's 5. A push within a
// side still arrives.
func TestHAProxyPeersAcrossAPartition(t *testing.T) {
	ms := time.Millisecond
	d := mustNew(t, Config{Protocol: HAProxyPeers, Instances: 3, Latency: ms, New: haproxy100()})
	p := d.proto.(*haproxyPeers)
	count := func(i int, at time.Duration) uint32 {
		d.runTimers(at)
		s, _ := p.instances[i].Entry("k", at)
		return s.Curr
	}
	if err := d.Partition(0, []int{1}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		d.Decide(0, "k", time.Duration(10+i)*ms, 1)
	}
	for i := range 3 {
		d.Decide(1, "k", time.Duration(10+i)*ms, 1)
	}
	if a, b, c := count(0, 100*ms), count(1, 100*ms), count(2, 100*ms); a != 5 || b != 3 || c != 5 {
		t.Fatalf("while apart: A %d, B %d, C %d; want 5, 3 and 5 (C on A's side)", a, b, c)
	}
	if lost := d.Stats().Lost; lost != 5+2*3 {
		t.Errorf("%d messages lost, want 11 (A's 5 to B, B's 3 to A and C)", lost)
	}
	if err := d.Partition(200*ms, nil); err != nil {
		t.Fatal(err)
	}
	if a, b := count(0, 300*ms), count(1, 300*ms); a != 3 || b != 5 {
		t.Errorf("healed: A %d, B %d; want 3 and 5 (each side's entry overwrites the other's)", a, b)
	}
}

// An instance cut off cannot reach the store; one added while a partition
// holds joins the side that was not cut off.
func TestPartitionCutsOffTheStore(t *testing.T) {
	d := mustNew(t, Config{Protocol: Central, Instances: 3, Most: 4, New: fixedWindow(5, time.Second)})
	if err := d.Partition(0, []int{2}); err != nil {
		t.Fatal(err)
	}
	if d.Reaches(2) || !d.Reaches(0) || !d.Reaches(1) {
		t.Fatalf("cut off [2]: reaches %v %v %v, want true true false", d.Reaches(0), d.Reaches(1), d.Reaches(2))
	}
	d.Scale(time.Second, 4)
	if !d.Reaches(3) {
		t.Error("an instance added during the partition is cut off")
	}
	if err := d.Partition(2*time.Second, []int{7}); err == nil {
		t.Error("a partition naming instance 7 of 4 was taken")
	}
	if err := d.Partition(2*time.Second, nil); err != nil || !d.Reaches(2) {
		t.Errorf("healed: %v, instance 2 reaches the store: %v", err, d.Reaches(2))
	}
}

// A link's jitter delays each message by up to Jitter beyond the latency, and
// a link keeps its order: 200 messages on one link arrive within the latency
// and its jitter or just behind the one before, never out of order, and the
// same seed gives the same arrivals.
func TestJitterDelaysWithinItsBoundAndKeepsEachLinksOrder(t *testing.T) {
	arrivals := func(seed uint64) []time.Duration {
		d := mustNew(t, Config{Protocol: HAProxyPeers, Instances: 2, Latency: 2 * time.Millisecond, Jitter: 3 * time.Millisecond, Seed: seed, New: haproxy100()})
		var out []time.Duration
		for i := range 200 {
			sent := time.Duration(i) * 100 * time.Microsecond
			d.send(0, 1, sent, func(at time.Duration) {
				// within latency and jitter, or held behind the message before
				if at < sent+2*time.Millisecond || (at > sent+5*time.Millisecond && (len(out) == 0 || at != out[len(out)-1])) {
					t.Errorf("message sent at %s arrived at %s", sent, at)
				}
				out = append(out, at)
			})
		}
		d.runTimers(time.Hour)
		return out
	}
	a, b, c := arrivals(1), arrivals(1), arrivals(2)
	if len(a) != 200 {
		t.Fatalf("%d of 200 arrived", len(a))
	}
	spread := map[time.Duration]bool{}
	for i := range a {
		if i > 0 && a[i] < a[i-1] {
			t.Fatalf("message %d arrived at %s, before message %d at %s: the link reordered", i, a[i], i-1, a[i-1])
		}
		if a[i] != b[i] {
			t.Fatalf("seed 1 twice: message %d at %s and %s", i, a[i], b[i])
		}
		spread[a[i]-time.Duration(i)*100*time.Microsecond] = true
	}
	if len(spread) < 20 || slices.Equal(a, c) {
		t.Errorf("the jitter drew %d distinct delays (want many); seeds 1 and 2 alike: %v", len(spread), slices.Equal(a, c))
	}
}

// A partition that moves from one set to another rejoins the pairs it no
// longer divides, as healing and cutting again at the same instant does: the
// same decisions either way.
func TestPartitionMovedIsHealedAndCutAgain(t *testing.T) {
	ms := time.Millisecond
	decide := func(moves [][2]any) []bool {
		d := mustNew(t, Config{Protocol: HAProxyPeers, Instances: 3, Latency: 5 * ms, New: haproxyAt(20)})
		var out []bool
		next := 0
		for i := range 300 {
			at := time.Duration(i) * 30 * ms
			for next < len(moves) && moves[next][0].(time.Duration) <= at {
				if err := d.Partition(moves[next][0].(time.Duration), moves[next][1].([]int)); err != nil {
					t.Fatal(err)
				}
				next++
			}
			got, _ := d.Decide(i%3, "k", at, 1)
			out = append(out, got.Allowed)
		}
		return out
	}
	moved := decide([][2]any{{time.Second, []int{0}}, {3 * time.Second, []int{1}}, {8 * time.Second, []int(nil)}})
	again := decide([][2]any{{time.Second, []int{0}}, {3 * time.Second, []int(nil)}, {3 * time.Second, []int{1}}, {8 * time.Second, []int(nil)}})
	if !slices.Equal(moved, again) {
		t.Error("a partition moved decides otherwise than one healed and cut again at the same instant")
	}
}
