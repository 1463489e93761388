package algorithms

import (
	"math"
	"time"
)

// JitterFactor is the share of a denial's retry-after added as jitter for key: the
// key's FNV-1a hash scaled to [0, 1), times fraction. Clients denied together (the
// same retry-after) come back spread over up to fraction × retry-after, and a key
// always gets the same share, so its retries stay predictable. The Redis ports
// apply it in Go, to the retry-after their scripts return.
func JitterFactor(key string, fraction float64) float64 {
	if fraction == 0 {
		return 0
	}
	return fraction * (float64(KeyHash(key)) / (1 << 64))
}

// jitter adds ceil(retry-after in µs × factor) microseconds to a denial's
// retry-after. Forever stays Forever; factor 0 changes nothing.
func jitter(retryAfterUS int64, factor float64) time.Duration {
	if factor == 0 || retryAfterUS <= 0 || retryAfterUS >= foreverUS {
		return microsToDuration(retryAfterUS)
	}
	return microsToDuration(retryAfterUS + int64(math.Ceil(float64(retryAfterUS)*factor)))
}

// KeyHash is the 64-bit FNV-1a hash of key. Limiters use it where a key needs a
// deterministic pseudo-random value: the jitter share, a fixed window's start offset.
func KeyHash(key string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= prime
	}
	return h
}
