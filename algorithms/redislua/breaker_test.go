package redislua

import (
	"context"
	"errors"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/redistest"
)

// A Redis that stops answering fails one call after callTimeout; the calls after
// it fail at once (ErrDown) rather than each waiting as long, so a lane reaches
// its on_error decisions in wall-clock time a UI frame can bear; once Redis
// answers again, calls go to it within a few probes. A refused connection (no
// server) trips nothing.
func TestFrozenRedisFailsCallsAtOnceUntilItAnswers(t *testing.T) {
	srv := redistest.Start(t)
	s, err := Open(context.Background(), srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	p := algorithms.Policy{Limit: 1000, Period: time.Second}
	red, _ := NewLimiter(s, Config{Lane: "l", Algorithm: "gcra", Policy: p})
	if d := red.Allow("k", 0, 1); !d.Allowed || red.Failures() != 0 {
		t.Fatalf("before the freeze: %+v, %d failures", d, red.Failures())
	}
	srv.Pause()
	start := time.Now()
	red.Allow("k", time.Millisecond, 1)
	if took := time.Since(start); took < callTimeout/2 || red.Failures() != 1 {
		t.Fatalf("the first call to a frozen Redis failed after %v with %d failures; want one failure after about %v", took, red.Failures(), callTimeout)
	}
	start = time.Now()
	for i := range 20 {
		red.Allow("k", time.Duration(2+i)*time.Millisecond, 1)
	}
	if took := time.Since(start); took > callTimeout/3 || red.Failures() != 21 {
		t.Errorf("20 calls while Redis is down took %v with %d failures in all; want 21 failures, at once (callTimeout %v)", took, red.Failures(), callTimeout)
	}
	if err := s.client.Ping(context.Background()).Err(); !errors.Is(err, ErrDown) {
		t.Errorf("a command while down: %v, want ErrDown", err)
	}
	srv.Resume()
	deadline := time.Now().Add(5 * time.Second)
	for s.breaker.down.Load() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	failures := red.Failures()
	if d := red.Allow("k", time.Second, 1); !d.Allowed || red.Failures() != failures {
		t.Errorf("after Redis answers again: %+v, %d failures (%d before); want it decided by Redis", d, red.Failures(), failures)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close after Redis came back: %v", err)
	}
}
