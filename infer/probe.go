package infer

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// ProbeOptions say what to probe and within what.
type ProbeOptions struct {
	URL string
	// Budget is the most requests sent, ever (DefaultBudget when 0).
	Budget int
	// MaxRate is the most requests a second sent, ever (DefaultMaxRate when 0).
	MaxRate float64
	// Header is added to every request (a key the API limits by).
	Header http.Header
	// Refused says a status is a refusal (nil: 429 and 503).
	Refused func(status int) bool
	// Client sends the requests (nil: one with a 60 s timeout).
	Client *http.Client
	// MaxIdle is the longest the probe waits, idle, for a limit to refill
	// (DefaultMaxIdle when 0).
	MaxIdle time.Duration
	// Log, when set, is told each phase as it starts.
	Log io.Writer
}

// The defaults of ProbeOptions.
const (
	DefaultBudget  = 300
	DefaultMaxRate = 100.0
	DefaultMaxIdle = 20 * time.Second
)

// Probed is a probe's result: the observations, the headers of the answers and
// the report on them.
type Probed struct {
	Observations []Observation
	Sent         int
	// Failed is how many got no answer (FirstError says why).
	Failed     int
	FirstError error
	Report     *Report
	// Phases are what the probe did, in order ("burst: 21 sent, 14 allowed").
	Phases []string
}

// prober sends requests within the budget and the rate cap, and keeps what
// comes back.
type prober struct {
	o        ProbeOptions
	ctx      context.Context
	mu       sync.Mutex
	obs      []Observation
	sent     int
	lastSend time.Time
	inflight sync.WaitGroup
	firstErr error
	failed   int
}

// Probe finds the limiter behind o.URL: a burst at the rate cap until it is
// refused, single requests ever further apart until one passes again (how
// long the limit takes to recover), a paced run at a third of that (its rate),
// a pause and a second burst (its size after an idle spell, and how its windows
// are aligned), then, while families remain that decide some request
// differently, that request. It stops when one family is left with its rate
// known to within 10%, or the budget is spent. The budget and the rate cap hold
// whatever the server answers.
func Probe(ctx context.Context, o ProbeOptions) (*Probed, error) {
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	if o.MaxRate <= 0 {
		o.MaxRate = DefaultMaxRate
	}
	if o.MaxIdle <= 0 {
		o.MaxIdle = DefaultMaxIdle
	}
	if o.Refused == nil {
		o.Refused = func(s int) bool { return s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable }
	}
	if o.Client == nil {
		// no connection reused: the transport resends a request on a reused
		// connection that the server closed, which the budget would not see
		o.Client = &http.Client{Timeout: time.Minute, Transport: &http.Transport{DisableKeepAlives: true},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	p := &prober{o: o, ctx: ctx}
	res := &Probed{}
	phase := func(format string, args ...any) {
		s := fmt.Sprintf(format, args...)
		res.Phases = append(res.Phases, s)
		if o.Log != nil {
			fmt.Fprintln(o.Log, s)
		}
	}
	finish := func() (*Probed, error) {
		p.inflight.Wait()
		res.Observations, res.Sent = p.observations(), p.sent
		res.Failed, res.FirstError = p.failed, p.firstErr
		res.Report = Analyze(res.Observations, tolerance(len(res.Observations)), ClaimsFrom(Headers(res.Observations)))
		if len(res.Observations) == 0 && p.firstErr != nil {
			return nil, fmt.Errorf("no answer to any of %d requests: %w", res.Sent, p.firstErr)
		}
		return res, ctx.Err()
	}
	// 1. a burst at the cap until refused
	allowed, refused := p.burst(min(o.Budget/2, 150))
	if len(p.observations()) == 0 {
		return finish() // no answer at all: finish says why
	}
	if refused {
		phase("burst at %s/s: %d allowed before the first refusal", trimFloat(o.MaxRate), allowed)
	} else {
		phase("burst at %s/s: %d allowed, none refused", trimFloat(o.MaxRate), allowed)
	}
	if !refused || ctx.Err() != nil {
		if p.firstErr != nil && allowed == 0 {
			return nil, p.firstErr
		}
		phase("no refusal: no limit below %s/s within %d requests", trimFloat(o.MaxRate), p.sent)
		return finish()
	}
	// 2. single requests, ever further apart, until one passes
	firstAt := p.firstAt()
	recovery, ok := p.recover()
	if ctx.Err() != nil {
		return finish()
	}
	if !ok {
		phase("no request passed again within %s: the limit refills slower than the probe can wait", o.MaxIdle)
		return finish()
	}
	phase("recovery: a request passed again after %s", recovery.Round(time.Millisecond))
	// 3. at once a second burst: a bucket has refilled a token or so, a
	// window has let go of many
	again, _ := p.burst(min(p.left()/3, 150))
	phase("burst at once: %d more allowed", again)
	// 4. a paced run: at three a recovery for a bucket, for about fifteen
	// recoveries (its rate); at half again the rate the first burst and its
	// recovery suggest for a window, over a few windows
	gap := recovery / 3
	if again > 2 {
		window := time.Since(firstAt) - recovery/2
		gap = time.Duration(float64(window) / (1.5 * float64(max(allowed, 1))))
	}
	gap = max(gap, p.minGap())
	n := min(45, p.left()/3)
	before := p.sentSoFar()
	paced := p.paced(n, gap)
	phase("paced run: %d sent %s apart, %d allowed", p.sentSoFar()-before, gap.Round(time.Millisecond), paced)
	// 5. idle, then a burst: the size after an idle spell, the windows' alignment
	rep := p.analyze()
	idle := p.idleFor(rep, recovery)
	if p.left() > 10 && ctx.Err() == nil {
		sleep(ctx, idle)
		allowed, _ = p.burst(min(p.left()/2, 150))
		if ctx.Err() != nil {
			return finish()
		}
		phase("after %s idle, a burst: %d allowed before the first refusal", idle.Round(time.Millisecond), allowed)
	}
	// 6. the bursts that split what remains
	for round := 0; round < 20 && p.left() > 0 && ctx.Err() == nil; round++ {
		began := time.Now()
		rep = p.analyze()
		if settled(rep) {
			phase("one family left, its rate known within 10%%")
			break
		}
		// planned from the last request, no sooner than this analysis
		// took again, and a margin
		obs := p.observations()
		earliest := time.Since(p.lastAt()) + time.Since(began) + 20*time.Millisecond
		next := nextSplit(obs, rep.consistentVariants(), earliest)
		if next == nil || next.After > o.MaxIdle {
			break
		}
		sleep(ctx, time.Until(p.lastAt().Add(next.After)))
		got := p.run(next.Offsets)
		var says []string
		for i, h := range next.Hypotheses {
			says = append(says, fmt.Sprintf("%s: %d", h, next.Allowed[i]))
		}
		phase("%d requests over %s, %s after the last: %d allowed (predicted: %s)", len(next.Offsets), next.Span().Round(time.Millisecond), next.After.Round(time.Millisecond), got, strings.Join(says, ", "))
	}
	return finish()
}

// tolerance is how many of n probe observations a hypothesis may get wrong:
// a request sent just before a boundary may be decided just after it.
func tolerance(n int) int { return max(2, n/40) }

// settled says one family is left and its rate is known to within 10%.
func settled(r *Report) bool {
	c := r.Consistent()
	if len(c) != 1 {
		return false
	}
	lo, hi := c[0].Rate()
	return finite(hi) && hi <= lo*1.1
}

// idleFor is how long to wait before the second burst: long enough for the
// best fit to refill entirely (twice its window for the windowed families,
// whose anchored counters forget after two), within MaxIdle.
func (p *prober) idleFor(r *Report, recovery time.Duration) time.Duration {
	idle := 4 * recovery
	if top, ok := r.Top(); ok {
		g, size := top.Best()
		if top.windowed() {
			idle = time.Duration(2.2 * g * float64(time.Second))
		} else if g > 0 {
			idle = time.Duration(1.2 * float64(size) / g * float64(time.Second))
		}
	}
	return min(max(idle, 100*time.Millisecond), p.o.MaxIdle)
}

func (p *prober) minGap() time.Duration { return time.Duration(float64(time.Second) / p.o.MaxRate) }

func (p *prober) sentSoFar() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sent
}

func (p *prober) left() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.o.Budget - p.sent
}

// firstAt is when the first request was sent.
func (p *prober) firstAt() time.Time {
	obs := p.observations()
	if len(obs) == 0 {
		return time.Now()
	}
	return time.Unix(0, int64(obs[0].At))
}

func (p *prober) lastAt() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastSend
}

func (p *prober) observations() []Observation {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := append([]Observation(nil), p.obs...)
	sortObs(out)
	return out
}

func (p *prober) analyze() *Report {
	p.inflight.Wait()
	obs := p.observations()
	return Analyze(obs, tolerance(len(obs)), nil)
}
