package tune

import (
	"fmt"
	"strconv"
	"strings"
)

// Every policy tune sweeps decides each key on that key's requests alone (a
// per-key limit), so the keys can be swept apart and the counts added up: a
// trace too large for memory is split by key onto disk and swept part by part,
// and a trace too large for one machine is split the same way over several runs
// (--partition K/N), whose partial results ratelab tune merge adds up into the
// report one run would have printed.

// Partition is the share of the keys one run sweeps: the keys whose hash is K
// modulo N. The zero value, and 0/1, is every key.
type Partition struct{ K, N int }

// All says p is every key.
func (p Partition) All() bool { return p.N <= 1 }

// String is K/N.
func (p Partition) String() string { return fmt.Sprintf("%d/%d", p.K, max(p.N, 1)) }

// Has says the key with hash h is in p.
func (p Partition) Has(h uint64) bool { return p.All() || h%uint64(p.N) == uint64(p.K) }

// maxPartitions is the most partitions a sweep is spread over.
const maxPartitions = 1 << 20

// ParsePartition reads K/N, 0 <= K < N.
func ParsePartition(s string) (Partition, error) {
	a, b, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	switch {
	case !ok || err1 != nil || err2 != nil:
		return Partition{}, fmt.Errorf("%q is not K/N with whole numbers, like 0/4 (the first of four)", s)
	case n < 1 || n > maxPartitions:
		return Partition{}, fmt.Errorf("%q: N must be from 1 to %d", s, maxPartitions)
	case k < 0 || k >= n:
		return Partition{}, fmt.Errorf("%q: K must be from 0 to N-1 (%d)", s, n-1)
	}
	return Partition{K: k, N: n}, nil
}

// keyHash is a key's hash, the same on every machine and in every run: 64-bit
// FNV-1a (http://www.isthe.com/chongo/tech/comp/fnv/) finished with
// SplitMix64's mixer, so that its low bits (the partition) and high bits (the
// part on disk, the scout's sample) are uniform.
func keyHash(key string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}
