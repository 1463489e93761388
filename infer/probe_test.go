package infer

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// However the server answers, a probe never sends more than its budget nor
// faster than its rate cap: here against a server that refuses everything,
// one that allows everything, and one that allows one request in three.
func TestProbeKeepsItsBudgetAndRateCap(t *testing.T) {
	for _, tc := range []struct {
		name   string
		refuse func(n int) bool
		drop   bool // close every other connection without an answer
	}{
		{"refuses all", func(int) bool { return true }, false},
		{"allows all", func(int) bool { return false }, false},
		{"allows one in three", func(n int) bool { return n%3 != 0 }, false},
		{"drops every other connection", func(n int) bool { return n%3 != 0 }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var arrivals []time.Time
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				mu.Lock()
				arrivals = append(arrivals, time.Now())
				n := len(arrivals)
				mu.Unlock()
				if tc.drop && n%2 == 0 {
					// a transport would send the request again on a
					// reused connection: the budget must still hold
					if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
						c.Close()
					}
					return
				}
				if tc.refuse(n) {
					w.WriteHeader(http.StatusTooManyRequests)
				}
			}))
			defer ts.Close()
			const budget, rate = 60, 200.0
			res, err := Probe(context.Background(), ProbeOptions{URL: ts.URL, Budget: budget, MaxRate: rate, MaxIdle: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(arrivals) > budget || res.Sent > budget {
				t.Errorf("%d requests arrived (%d sent), over the budget of %d", len(arrivals), res.Sent, budget)
			}
			if res.Sent != len(arrivals) && !tc.drop {
				t.Errorf("%d sent, %d arrived", res.Sent, len(arrivals))
			}
			// sends are 1/rate apart at least; arrivals can bunch a little
			// behind them, so count per 100 ms with one of slack
			for i := range arrivals {
				in := 0
				for _, a := range arrivals[i:] {
					if a.Sub(arrivals[i]) < 100*time.Millisecond {
						in++
					}
				}
				if in > int(rate/10)+2 {
					t.Fatalf("%d requests arrived within 100 ms, over the cap of %g a second", in, rate)
				}
			}
		})
	}
}
