package sim

import (
	"math/rand/v2"
	"time"

	"ratelab/algorithms"
)

// wait is how long a client waits after its attempt-th attempt failed before trying
// again, and false if it gives up: attempts used up, a failure its policy does not
// retry, or a Retry-After of never. denied says the limiter refused (a 429 that may
// carry retryAfter); otherwise the backend failed (a 5xx, no Retry-After). The
// jitter is drawn from stream(n), the stream the caller seeds for this request
// and its n-th attempt (see jitterStream), so it does not depend on the order
// failures are handled in; decorrelated jitter replays the draws of the
// attempts before, as each wait grows from the last.
func (r *Retry) wait(attempt int, denied bool, retryAfter time.Duration, stream func(attempt int) *rand.Rand) (time.Duration, bool) {
	if !r.retries(denied) || attempt >= r.MaxAttempts {
		return 0, false
	}
	var base time.Duration
	switch r.Policy {
	case RetryFixed:
		base = r.Delay
	case RetryExponential:
		base = r.Delay
		for i := 1; i < attempt && base < r.Cap; i++ {
			base *= 2
		}
		base = min(base, r.Cap)
	case RetryHonour:
		base = r.Delay
		if denied {
			if retryAfter == algorithms.Forever {
				return 0, false
			}
			base = retryAfter
		}
	}
	switch r.Jitter {
	case JitterDecorrelated:
		base = decorrelated(r.Delay, r.Cap, attempt, stream)
	case JitterFull:
		rng := stream(attempt)
		base = time.Duration(rng.Int64N(int64(base/time.Microsecond)+1)) * time.Microsecond
	case JitterEqual:
		rng := stream(attempt)
		half := base / 2
		base = half + time.Duration(rng.Int64N(int64(half/time.Microsecond)+1))*time.Microsecond
	}
	return base.Truncate(time.Microsecond), true
}

// retries says the policy retries a refusal (denied) or a backend failure.
func (r *Retry) retries(denied bool) bool {
	return r.Policy != RetryNone && (denied && r.OnDeny || !denied && r.OnError)
}

// decorrelated is AWS's "decorrelated jitter" (Marc Brooker, "Exponential
// Backoff And Jitter", AWS Architecture Blog, 2015): sleep = min(cap,
// random_between(base, sleep × 3)), from sleep = base, once per failure; the
// attempt-th wait replays the draws of the failures before it.
func decorrelated(base, cap time.Duration, attempt int, stream func(int) *rand.Rand) time.Duration {
	sleep := base
	for n := 1; n <= attempt; n++ {
		hi := max(3*sleep, base)
		span := int64((hi-base)/time.Microsecond) + 1
		sleep = min(cap, base+time.Duration(stream(n).Int64N(span))*time.Microsecond)
	}
	return sleep
}

// jitterStream is the random stream of one retry: seeded from the run's seed, the
// client, the logical request and the attempt, so a retry's jitter is the same
// whatever else happened first (a batch of decisions applied later, another
// request's failure handled earlier).
func jitterStream(seed uint64, client int, request int64, attempt int) *rand.Rand {
	return rand.New(rand.NewPCG(splitmix(seed^streamRetry<<56^uint64(client)<<40), splitmix(uint64(request)<<8^uint64(attempt))))
}

// throttleStream is the random stream of an adaptive throttle's draw for a
// request's attempt-th attempt, seeded as jitterStream is (remedy.go).
func throttleStream(seed uint64, client int, request int64, attempt int) *rand.Rand {
	return rand.New(rand.NewPCG(splitmix(seed^streamThrottle<<56^uint64(client)<<40), splitmix(uint64(request)<<8^uint64(attempt))))
}
