package algorithms

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// Allow is Check, then Add when allowed: on random traces a Counter taken
// apart into the two steps decides and holds exactly what Allow does.
func TestCounterIsCheckThenAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 34))
	for trial := range 400 {
		p := randomPolicy(r)
		for _, mk := range []func() Counter{
			func() Counter { return NewFixedWindow(p, trial%2 == 0, int64(trial%3)) },
			func() Counter { return NewSlidingCounter(p) },
		} {
			whole, steps := mk(), mk()
			for i, q := range randomTrace(r, p, 60, 3) {
				want := whole.Allow(q.key, q.at, q.cost)
				got := steps.Check(q.key, q.at, q.cost)
				if got.Allowed {
					steps.Add(q.key, q.at, q.cost)
				}
				if !reflect.DeepEqual(got, want) || whole.Level(q.key, q.at) != steps.Level(q.key, q.at) {
					t.Fatalf("%s trial %d request %d %+v: Check+Add %+v level %v, Allow %+v level %v", whole.Algorithm(), trial, i, q, got, steps.Level(q.key, q.at), want, whole.Level(q.key, q.at))
				}
			}
		}
	}
}

// Add counts past the limit, and the count refuses until its window has
// passed: a fixed window of 5 added to 8 refuses the rest of the window and
// admits 5 in the next.
func TestCounterAddPassesTheLimit(t *testing.T) {
	p := Policy{Limit: 5, Period: 1e9}
	f := NewFixedWindow(p, false, 0)
	f.Add("k", 0, 8)
	if lv := f.Level("k", 1); lv != 8 {
		t.Fatalf("level after adding 8 = %v, want 8", lv)
	}
	if d := f.Allow("k", 500e6, 1); d.Allowed || d.Remaining != 0 || d.RetryAfter != 500e6 {
		t.Fatalf("a window counted past its limit: %+v, want refused, none left, retry at the window's end", d)
	}
	for i := range 5 {
		if d := f.Allow("k", 1e9+1, 1); !d.Allowed {
			t.Fatalf("next window, request %d refused: %+v", i, d)
		}
	}
	s := NewSlidingCounter(p)
	s.Add("k", 0, 10) // the next window starts with an estimate of 10 × (1 − elapsed)
	if d := s.Allow("k", 1e9+500e6, 1); d.Allowed {
		t.Fatalf("sliding counter half way into the next window after 10 in the last: admitted %+v, want refused (estimate 5 + 1 > 5)", d)
	}
	if d := s.Allow("k", 1e9+600e6, 1); !d.Allowed {
		t.Fatalf("sliding counter at 60%% into the next window: refused %+v, want admitted (estimate 4 + 1 ≤ 5)", d)
	}
}
