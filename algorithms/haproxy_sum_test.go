package algorithms

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// With nothing in the other tables, AllowSum is Allow, on random traces of
// both track rules; with the others at the limit, nothing passes, and the
// request is still tracked before the deny (not after it).
func TestHAProxyAllowSum(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for trial := range 300 {
		p := randomPolicy(r)
		track := []HAProxyTrack{TrackBeforeDeny, TrackAfterDeny}[trial%2]
		a, b := NewHAProxy(p, track, 0, HAProxyRelease{}), NewHAProxy(p, track, 0, HAProxyRelease{})
		for i, q := range randomTrace(r, p, 80, 1) {
			want, got := a.Allow(q.key, q.at, 1), b.AllowSum(q.key, q.at, 0)
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("trial %d (%s) request %d %+v: AllowSum %+v, Allow %+v", trial, track, i, q, got, want)
			}
		}
	}
	for _, track := range []HAProxyTrack{TrackBeforeDeny, TrackAfterDeny} {
		h := NewHAProxy(Policy{Limit: 10, Period: time.Second}, track, 0, HAProxyRelease{})
		for i := range 3 {
			if d := h.AllowSum("k", time.Duration(i)*time.Millisecond, 10); d.Allowed || d.Remaining != 0 {
				t.Errorf("%s: others at the limit, request %d: %+v, want refused with nothing left", track, i, d)
			}
		}
		s, _ := h.Entry("k", 5*time.Millisecond)
		if want := map[HAProxyTrack]uint32{TrackBeforeDeny: 3, TrackAfterDeny: 0}[track]; s.Curr != want {
			t.Errorf("%s: the table counted %d of the 3 refused, want %d", track, s.Curr, want)
		}
		if d := h.AllowSum("k", 10*time.Millisecond, 4); track == TrackAfterDeny && !d.Allowed {
			t.Errorf("%s: others at 4 of 10 and none here: refused %+v", track, d)
		}
	}
}
