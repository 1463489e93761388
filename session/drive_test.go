package session

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"ratelab/scenarios"
	"ratelab/sim"
)

// compiled is a shipped scenario in memory, with only the lanes named (all when
// none is).
func compiled(t *testing.T, name string, lanes ...string) *sim.Config {
	t.Helper()
	cfg, err := catalogue(t).Compile(name, scenarios.Overrides{Lanes: lanes})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// started is a run of cfg in memory, closed when the test ends.
func started(t *testing.T, cfg *sim.Config) *Session {
	t.Helper()
	s, err := Start(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// A drive to the end feeds every sink every decision and every tick, once, in
// order, and says how far it got after each step; its rows and series are those
// of the run advanced at once.
func TestDriveFeedsEverySink(t *testing.T) {
	cfg := compiled(t, "thundering-herd", "token-bucket", "fixed-window") // a backend: rows wait for their fate
	var a, b []sim.Row
	var samples []sim.Sample
	var progress []time.Duration
	s := started(t, cfg)
	sinks := Sinks{
		Rows:     []func([]sim.Row) error{func(r []sim.Row) error { a = append(a, r...); return nil }, func(r []sim.Row) error { b = append(b, r...); return nil }},
		Series:   []func(int, sim.Sample) error{func(_ int, x sim.Sample) error { samples = append(samples, x); return nil }},
		Progress: func(now, to time.Duration) { progress = append(progress, now) },
	}
	tgt := Through(cfg, cfg.Duration)
	if err := Drive(context.Background(), s.Run, tgt, sinks); err != nil {
		t.Fatal(err)
	}
	var attempts int64
	for _, m := range s.Metrics() {
		attempts += m.Attempts
	}
	if int64(len(a)) != attempts || !reflect.DeepEqual(a, b) {
		t.Errorf("the sinks had %d and %d rows, want the %d decisions each", len(a), len(b), attempts)
	}
	if want := int(cfg.Duration/cfg.Tick) * len(cfg.Lanes); len(samples) != want {
		t.Errorf("%d samples, want %d (every tick of every lane)", len(samples), want)
	}
	if tgt.Step != time.Second || len(progress) != int(cfg.Duration/time.Second) || progress[0] != time.Second || progress[len(progress)-1] != cfg.Duration {
		t.Errorf("progress after each step: %v", progress)
	}

	once := started(t, cfg)
	var whole []sim.Row
	once.OnRows(func(r []sim.Row) error { whole = append(whole, r...); return nil })
	if err := once.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, whole) {
		t.Error("the drive's rows differ from the run advanced at once")
	}
}

// A drive short of the end hands the rows still in flight as they stand; a
// budget ends a drive at the end of the step that spends it; sinks come before
// the first advance; a done context stops a drive, saying where.
func TestDriveStopsShort(t *testing.T) {
	cfg := compiled(t, "retry-storm", "token-bucket", "gcra")
	s := started(t, cfg)
	var rows []sim.Row
	if err := Drive(context.Background(), s.Run, Through(cfg, 2500*time.Millisecond), Sinks{Rows: []func([]sim.Row) error{func(r []sim.Row) error { rows = append(rows, r...); return nil }}}); err != nil {
		t.Fatal(err)
	}
	var attempts int64
	for _, m := range s.Metrics() {
		attempts += m.Attempts
	}
	inFlight := 0
	for _, r := range rows {
		if r.Outcome == sim.OutcomeInFlight {
			inFlight++
		}
	}
	if s.Now() != 2500*time.Millisecond || int64(len(rows)) != attempts || inFlight == 0 {
		t.Errorf("at %v: %d rows (%d in flight) for %d decisions; want every decision so far, some in flight", s.Now(), len(rows), inFlight, attempts)
	}

	tiers := compiled(t, "tiers") // 140,000 requests a second over its lanes
	s = started(t, tiers)
	if err := Drive(context.Background(), s.Run, Target{To: tiers.Duration, Step: tiers.Tick, Budget: 50_000}, Sinks{}); err != nil {
		t.Fatal(err)
	}
	if d := s.Decisions(); d < 50_000 || d > 50_000+20_000 || s.Done() {
		t.Errorf("a budget of 50,000 decisions: %d made, done %v; want the budget and at most a tick's worth more", d, s.Done())
	}
	err := Drive(context.Background(), s.Run, Through(tiers, tiers.Duration), Sinks{Rows: []func([]sim.Row) error{func([]sim.Row) error { return nil }}})
	if err == nil || !strings.Contains(err.Error(), "before the run's first advance") {
		t.Errorf("sinks after the run advanced: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	s = started(t, cfg)
	stops := 0
	err = Drive(ctx, s.Run, Through(cfg, cfg.Duration), Sinks{Progress: func(now, _ time.Duration) {
		if now >= 3*time.Second {
			stops++
			cancel()
		}
	}})
	var stopped *sim.Stopped
	if !errors.As(err, &stopped) || !errors.Is(err, context.Canceled) || stopped.At != 3*time.Second || s.Now() != 3*time.Second || stops != 1 {
		t.Errorf("cancelled at 3 s: %v (at %v, run at %v, %d steps after)", err, stopped, s.Now(), stops)
	}
}
