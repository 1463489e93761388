package deploy

import (
	"testing"
	"time"
)

// step is one request at an instant: at instance Inst, Hits of Key, and the
// answer wanted.
type step struct {
	At        time.Duration
	Inst      int
	Key       string
	Hits      int64
	Allowed   bool
	Remaining int64 // checked when ≥ 0
}

// run runs steps on d, in the x/time/rate style: "step 3: …".
func run(t *testing.T, d *Deployment, steps []step) {
	t.Helper()
	for i, s := range steps {
		got, _ := d.Decide(s.Inst, s.Key, s.At, s.Hits)
		if got.Allowed != s.Allowed || (s.Remaining >= 0 && int64(got.Remaining) != s.Remaining) {
			t.Errorf("step %d: instance %d, %d hits of %s at %s: allowed %v remaining %v, want %v %d", i, s.Inst, s.Hits, s.Key, s.At, got.Allowed, got.Remaining, s.Allowed, s.Remaining)
		}
	}
}

func mustNew(t *testing.T, cfg Config) *Deployment {
	t.Helper()
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
