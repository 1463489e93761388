package conformance

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/realserver"
)

// The product lanes against the real servers (realserver_nginx_test.go,
// realserver_haproxy_test.go): each case starts nginx 1.22 or HAProxy 2.6 with a
// generated configuration (internal/realserver), sends it seeded traffic from
// several senders over several keys, so that requests share milliseconds, and
// reads back from the server's own log what it decided for every request and at
// which instant of its own clock. Those instants are replayed in the order the
// server decided, through the lane built from the same configuration, and every
// decision is compared with the server's.
//
// The server's clock is read to the millisecond it used, but not always exactly
// (see realserver.DeriveNginxArrivals): the only disagreements allowed are those
// that moving that request's arrival by one millisecond, either way, explains —
// the lane, asked at the moved instant against the same state, agrees with the
// server — and the replay then goes on from the moved instant, as the server
// did. The test logs how many requests it compared and how many the shift
// explained, and fails on any other disagreement.

// served is one request as a real server decided it.
type served struct {
	id  int64
	key string
	// at is the server's clock when it decided, from the replay's origin.
	at time.Duration
	// did is what the server did, for messages.
	did string
	// estimated says at is right only to a millisecond (nginx's delayed
	// requests, realserver.ArrivalEstimated); else it is the server's exactly.
	estimated bool
	// agrees says the lane's decision d is the server's, or how it is not.
	agrees func(d algorithms.Decision) (bool, string)
}

// replayed counts a replay.
type replayed struct {
	compared  int
	explained map[time.Duration]int // by the shift that explains them
	// explainedExact are the explained disagreements on arrivals read exactly
	// (the lane's state there follows earlier estimated ones).
	explainedExact int
	failures       []string
	// decisions are the lane's, request by request (at the moved instant when
	// a shift explained it).
	decisions []algorithms.Decision
}

func (r replayed) explainedAll() int {
	return r.explained[-time.Millisecond] + r.explained[time.Millisecond]
}

// replayServed decides reqs, in order, with lane, and compares each decision with the
// server's.
func replayServed(lane algorithms.Limiter, reqs []served) replayed {
	check := lane.(algorithms.Checker)
	out := replayed{explained: map[time.Duration]int{}}
	for i, r := range reqs {
		out.compared++
		at := r.at
		d := check.Check(r.key, at, 1)
		if ok, why := r.agrees(d); !ok {
			moved := false
			for _, shift := range []time.Duration{-time.Millisecond, time.Millisecond} {
				if ok, _ := r.agrees(check.Check(r.key, r.at+shift, 1)); ok {
					at, moved = r.at+shift, true
					out.explained[shift]++
					if !r.estimated {
						out.explainedExact++
					}
					break
				}
			}
			if !moved {
				out.failures = append(out.failures, fmt.Sprintf("request %d of %d (id %d, key %s) at %s: the server %s; the lane %s, and moved by ±1ms too", i+1, len(reqs), r.id, r.key, r.at, r.did, why))
			}
			d = check.Check(r.key, at, 1)
		}
		if got := lane.Allow(r.key, at, 1); !reflect.DeepEqual(got, d) {
			out.failures = append(out.failures, fmt.Sprintf("request %d (id %d, key %s) at %s: Allow = %+v, Check said %+v", i+1, r.id, r.key, at, got, d))
		}
		out.decisions = append(out.decisions, d)
	}
	return out
}

// report logs a replay's counts and fails t on its failures (the first 20).
func (r replayed) report(t *testing.T, what string) {
	t.Helper()
	t.Logf("%s: %d requests compared, %d disagreements explained by moving the arrival 1 ms (%d earlier, %d later; %d of them on arrivals read exactly), %d not explained",
		what, r.compared, r.explainedAll(), r.explained[-time.Millisecond], r.explained[time.Millisecond], r.explainedExact, len(r.failures))
	for i, f := range r.failures {
		if i == 20 {
			t.Errorf("… and %d more", len(r.failures)-20)
			break
		}
		t.Error(f)
	}
}

// drive sends load to base and fails t when a request goes unanswered.
func drive(t *testing.T, base string, load realserver.Load) []realserver.Response {
	t.Helper()
	resps, err := realserver.Drive(context.Background(), base, load)
	if err != nil {
		t.Fatal(err)
	}
	return resps
}

// countWords is how many of each word there are, in a stable order, for logs.
func countWords(words []string) string {
	n := map[string]int{}
	for _, w := range words {
		n[w]++
	}
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %s", n[k], k)
	}
	return b.String()
}
