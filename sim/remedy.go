package sim

import (
	"math/rand/v2"
	"time"
)

// The remedies for retry storms the field uses, in the client or its proxy,
// each as its source decides. A client's Retry may carry any of them; the clients of one node with
// the same remedies share their state (a budget, a throttle, a window of
// counts), as the calls of one process share it; clients with other
// parameters, or a client whose policy a change replaced, keep their own.

// RetryBudget is Finagle's RetryBudget (twitter/finagle,
// finagle-core/src/main/scala/com/twitter/finagle/service/RetryBudget.scala at
// 0e26b57): each logical request deposits, each retry withdraws 1/Percent
// deposits, and a retry with nothing to withdraw is not sent. Deposits and
// withdrawals expire after about TTL, and a reserve of MinPerSecond × TTL
// retries is always there: retries are at most about Percent of the requests
// of the last TTL plus MinPerSecond a second. Finagle's default is TTL 10 s,
// MinPerSecond 10, Percent 0.2.
type RetryBudget struct {
	TTL          time.Duration // 1 s to 60 s, as Finagle requires
	MinPerSecond int           // >= 0
	Percent      float64       // retries per deposit, 0 to 1000
}

// budgetScale is Finagle's TokenRetryBudget.ScaleFactor: a deposit is worth
// 1000 tokens, a withdrawal 1000 / Percent, in whole tokens.
const budgetScale = 1000

// amounts are a deposit's and a withdrawal's tokens and the reserve, as
// RetryBudget.apply computes them (percent 0: deposits earn nothing and a
// retry costs 1).
func (b RetryBudget) amounts() (deposit, withdrawal, reserve int64) {
	deposit, withdrawal = budgetScale, int64(budgetScale/b.Percent)
	if b.Percent == 0 {
		deposit, withdrawal = 0, 1
	}
	return deposit, withdrawal, int64(b.MinPerSecond) * int64(b.TTL/time.Second) * withdrawal
}

// windowedAdder is twitter/util's WindowedAdder (util-core/src/main/scala/com/
// twitter/util/WindowedAdder.scala at 1bdeab5), the sum behind
// TokenBucket.newLeakyBucket: a head slice being written and slices-1 older
// ones of range/slices each; a slice ends when its span has passed since the
// last one ended (slices are not aligned to the clock), and slices skipped
// meanwhile are cleared.
type windowedAdder struct {
	window time.Duration
	buf    []int64
	i      int
	head   int64
	old    time.Duration
}

func newWindowedAdder(span time.Duration, slices int, now time.Duration) *windowedAdder {
	return &windowedAdder{window: span / time.Duration(slices), buf: make([]int64, slices-1), old: now}
}

func (w *windowedAdder) expire(now time.Duration) {
	if now-w.old < w.window {
		return
	}
	n := len(w.buf)
	w.buf[w.i], w.head = w.head, 0
	w.i = (w.i + 1) % n
	skip := min(int((now-w.old)/w.window)-1, n)
	for ; skip > 0; skip-- {
		w.buf[w.i] = 0
		w.i = (w.i + 1) % n
	}
	w.old = now
}

func (w *windowedAdder) add(now time.Duration, x int64) {
	w.expire(now)
	w.head += x
}

func (w *windowedAdder) sum(now time.Duration) int64 {
	w.expire(now)
	s := w.head
	for _, v := range w.buf {
		s += v
	}
	return s
}

// RetryThrottle is gRPC's retry throttling (gRFC A6; grpc/grpc-go,
// clientconn.go's retryThrottler and stream.go's shouldRetry at 5878d96): a
// channel holds MaxTokens tokens; every failed attempt the policy would retry
// takes one (down to 0), every request that succeeds gives back TokenRatio (up
// to MaxTokens), and a failure is not retried while the tokens, after taking
// its one, are at or below half of MaxTokens. Once more than TokenRatio / (1 +
// TokenRatio) of attempts fail (9.1% at 0.1) the tokens drain and retries stop.
type RetryThrottle struct {
	MaxTokens  float64 // (0, 1000]
	TokenRatio float64 // > 0
}

// AdaptiveThrottle is the client-side throttling of Google's SRE book (chapter
// 21, "Handling Overload"): a client keeps, over the last Window, its requests
// (every attempt it meant to send, those it rejected itself included) and the
// accepts (attempts the service served), and rejects a new attempt itself with
// probability max(0, (requests − K × accepts) / (requests + 1)). A service
// accepting 100 of 1,000 a second then receives about K × 100 a second. The book
// counts over two minutes and suggests K = 2; the window here is kept in
// one-second slices. An attempt rejected this way is not sent and its request
// is given up: the application got its error at once.
type AdaptiveThrottle struct {
	K      float64       // > 0
	Window time.Duration // whole seconds, >= 1 s
}

// EnvoyRetryBudget is Envoy's retry budget (a cluster's
// circuit_breakers.thresholds.retry_budget; envoyproxy/envoy,
// source/common/upstream/resource_manager_impl.h's RetryBudgetImpl at
// 01c2c1f, and source/common/router/retry_state_impl.cc's shouldRetry at
// 00d9abb): a failure the policy would retry is retried while the retries
// outstanding are fewer than max(BudgetPercent/100 × the requests active,
// MinRetryConcurrency), the product cut to a whole number; otherwise it
// overflows (upstream_rq_retry_overflow) and the request fails. A retry is
// outstanding from its decision, its backoff included, until its attempt is
// answered; the requests active are the attempts sent and not yet answered
// (Envoy counts its active and pending upstream requests; an attempt is no
// longer active once answered, before its retry is decided). Envoy's defaults
// are 20% and 3; the budget is per Envoy, as each proxy's resource manager is.
type EnvoyRetryBudget struct {
	BudgetPercent       float64 // [0, 100]
	MinRetryConcurrency int     // >= 0
}

// max is the retries the budget lets be outstanding with active requests.
func (b EnvoyRetryBudget) max(active int64) int64 {
	return max(int64(b.BudgetPercent/100*float64(active)), int64(b.MinRetryConcurrency))
}

// remedyKey names a remedy state: a node and the remedies' parameters.
type remedyKey struct {
	node     int
	budget   RetryBudget
	throttle RetryThrottle
	adaptive AdaptiveThrottle
	envoy    EnvoyRetryBudget
}

// keyOf is the key of the state the retry policy r of a client on node uses.
func keyOf(node int, r Retry) remedyKey {
	k := remedyKey{node: node}
	if r.Budget != nil {
		k.budget = *r.Budget
	}
	if r.Throttle != nil {
		k.throttle = *r.Throttle
	}
	if r.Adaptive != nil {
		k.adaptive = *r.Adaptive
	}
	if r.Envoy != nil {
		k.envoy = *r.Envoy
	}
	return k
}

// remedyState is one node's state for its clients' remedies of one set of
// parameters, in one lane.
type remedyState struct {
	budget *windowedAdder // Finagle's, from the first deposit
	tokens float64        // gRPC's
	primed bool           // tokens set to MaxTokens
	// the adaptive throttle's counts, per second of the window, and their sums
	requests, accepts []int64
	sumReq, sumAcc    int64
	second            int64 // the second the slices' last entry is for
	// Envoy's budget: the attempts sent and not answered, and the retries
	// outstanding
	active, outstanding int64
}

// deposit is a new logical request: Finagle's budget earns a deposit.
func (s *remedyState) deposit(r Retry, now time.Duration) {
	if r.Budget == nil {
		return
	}
	d, _, _ := r.Budget.amounts()
	s.adder(r, now).add(now, d)
}

func (s *remedyState) adder(r Retry, now time.Duration) *windowedAdder {
	if s.budget == nil {
		s.budget = newWindowedAdder(r.Budget.TTL, 10, now)
	}
	return s.budget
}

// mayRetry is whether a failed attempt is retried: retryable says the policy
// would retry its kind of failure (gRPC's throttle takes a token for every
// such failure, retried or not), wants that the policy would retry this one
// now (attempts left, a wait known).
func (s *remedyState) mayRetry(r Retry, retryable, wants bool, now time.Duration) bool {
	if t := r.Throttle; t != nil && retryable {
		s.prime(t)
		s.tokens = max(s.tokens-1, 0)
		if s.tokens <= t.MaxTokens/2 {
			return false
		}
	}
	if !wants {
		return false
	}
	if r.Budget != nil {
		_, w, reserve := r.Budget.amounts()
		a := s.adder(r, now)
		if a.sum(now)+reserve < w {
			return false
		}
		a.add(now, -w)
	}
	if e := r.Envoy; e != nil {
		if s.outstanding >= e.max(s.active) {
			return false
		}
		s.outstanding++
	}
	return true
}

// sent is an attempt sent: one more request active for Envoy's budget.
func (s *remedyState) sent(r Retry) {
	if r.Envoy != nil {
		s.active++
	}
}

// answered is an attempt answered, retry says it was a retry Envoy's budget
// let be outstanding: both end.
func (s *remedyState) answered(r Retry, retry bool) {
	if r.Envoy == nil {
		return
	}
	s.active = max(s.active-1, 0)
	if retry {
		s.outstanding = max(s.outstanding-1, 0)
	}
}

func (s *remedyState) prime(t *RetryThrottle) {
	if !s.primed {
		s.tokens, s.primed = t.MaxTokens, true
	}
}

// succeeded is a request served: gRPC's throttle earns TokenRatio, the adaptive
// throttle an accept.
func (s *remedyState) succeeded(r Retry, now time.Duration) {
	if t := r.Throttle; t != nil {
		s.prime(t)
		s.tokens = min(s.tokens+t.TokenRatio, t.MaxTokens)
	}
	if r.Adaptive != nil {
		s.accepts[s.slide(r.Adaptive, now)]++
		s.sumAcc++
	}
}

// sends is whether an attempt about to be sent goes: false when the adaptive
// throttle rejects it, drawing from rng (seeded for this attempt). Either way
// it counts as a request.
func (s *remedyState) sends(r Retry, now time.Duration, rng func() *rand.Rand) bool {
	a := r.Adaptive
	if a == nil {
		return true
	}
	slot := s.slide(a, now)
	req, acc := s.sumReq, s.sumAcc
	s.requests[slot]++
	s.sumReq++
	p := (float64(req) - a.K*float64(acc)) / float64(req+1)
	return p <= 0 || rng().Float64() >= p
}

// slide moves the adaptive throttle's window to now's second, clearing the
// seconds that left it, and returns now's slot.
func (s *remedyState) slide(a *AdaptiveThrottle, now time.Duration) int {
	n := int64(a.Window / time.Second)
	if s.requests == nil {
		s.requests, s.accepts = make([]int64, n), make([]int64, n)
		s.second = int64(now / time.Second)
	}
	sec := int64(now / time.Second)
	for gone := s.second + 1; gone <= sec && gone <= s.second+n; gone++ {
		s.sumReq, s.sumAcc = s.sumReq-s.requests[gone%n], s.sumAcc-s.accepts[gone%n]
		s.requests[gone%n], s.accepts[gone%n] = 0, 0
	}
	s.second = max(s.second, sec)
	return int(sec % n)
}

// remedied says the policy carries a remedy whose state the lane keeps.
func (r *Retry) remedied() bool {
	return r.Budget != nil || r.Throttle != nil || r.Adaptive != nil || r.Envoy != nil
}
