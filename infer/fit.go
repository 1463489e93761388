package infer

import (
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
)

// Unbounded is a size no observation bounds from above (nothing was refused
// that a larger size would have let through).
const Unbounded = math.MaxInt64

// Point is one grid value of a variant and the sizes consistent with it.
type Point struct {
	G        float64 // a rate a second, or a window in seconds
	Lo, Hi   int64   // sizes consistent; Hi Unbounded when none refused bounds it
	Mismatch int     // the fewest mismatches over the sizes in [Lo, Hi]
	Size     int64   // the middle of the sizes with the fewest mismatches
}

// VariantFit is what the observations leave of one variant.
type VariantFit struct {
	Variant
	// Mismatch is the fewest observations any of its hypotheses gets wrong.
	Mismatch int
	// Points are its consistent grid values (with at most the tolerance's
	// mismatches), in grid order.
	Points []Point
}

// Consistent says some hypothesis of the variant fits.
func (f VariantFit) Consistent() bool { return len(f.Points) > 0 }

// Rate is the interval of the variant's rate a second over its consistent
// hypotheses (a window's: its limit over its length); hi is +Inf when a size
// is unbounded.
func (f VariantFit) Rate() (lo, hi float64) {
	lo, hi = math.Inf(1), 0
	for _, p := range f.Points {
		if f.windowed() {
			lo = min(lo, float64(p.Lo)/p.G)
			if p.Hi == Unbounded {
				hi = math.Inf(1)
			} else {
				hi = max(hi, float64(p.Hi)/p.G)
			}
			continue
		}
		lo, hi = min(lo, p.G), max(hi, p.G)
	}
	return lo, hi
}

// Burst is the interval of the size (a bucket's capacity, a window's limit).
func (f VariantFit) Burst() (lo, hi int64) {
	lo, hi = Unbounded, 0
	for _, p := range f.Points {
		lo, hi = min(lo, p.Lo), max(hi, p.Hi)
	}
	return lo, hi
}

// Window is the interval of a windowed variant's window, in seconds.
func (f VariantFit) Window() (lo, hi float64) {
	if !f.windowed() || len(f.Points) == 0 {
		return 0, 0
	}
	return f.Points[0].G, f.Points[len(f.Points)-1].G
}

// Best is the consistent point of fewest mismatches, the middle one of those
// (its size the middle of its interval, or its least when unbounded): the
// hypothesis the report states.
func (f VariantFit) Best() (g float64, size int64) {
	var best []Point
	for _, p := range f.Points {
		if p.Mismatch == f.Mismatch {
			best = append(best, p)
		}
	}
	if len(best) == 0 {
		return 0, 0
	}
	p := best[len(best)/2]
	return p.G, p.Size
}

// Fit is every variant fitted to the observations, ranked: the consistent ones
// first, fewest mismatches first, ties in Families' order.
func Fit(obs []Observation, tolerance int) []VariantFit {
	obs = slices.Clone(obs)
	sortObs(obs)
	wait := waits(obs)
	out := make([]VariantFit, len(Variants))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, v := range Variants {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i] = fitVariant(v, obs, wait, tolerance)
		})
	}
	wg.Wait()
	rank := func(f VariantFit) int { return slices.Index(Families, f.Family) }
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Consistent() != b.Consistent() {
			return a.Consistent()
		}
		if a.Mismatch != b.Mismatch {
			return a.Mismatch < b.Mismatch
		}
		return rank(a) < rank(b)
	})
	return out
}

// fitVariant scans v's grid.
func fitVariant(v Variant, obs []Observation, wait []float64, tolerance int) VariantFit {
	need := make([]int64, len(obs))
	var sc scratch
	f := VariantFit{Variant: v, Mismatch: math.MaxInt}
	for _, g := range grid(v) {
		held := v.needs(obs, wait, g, need)
		if held > tolerance {
			f.Mismatch = min(f.Mismatch, held)
			continue
		}
		p, ok := sizes(obs, need, held, tolerance, &sc)
		f.Mismatch = min(f.Mismatch, p.Mismatch)
		if ok {
			p.G = g
			f.Points = append(f.Points, p)
		}
	}
	return f
}

// waits are how long each allowed answer was held beyond an answer that is not,
// in seconds; nil when no latency is known (then holds are not judged).
func waits(obs []Observation) []float64 {
	base := baseLatency(obs)
	if base == 0 {
		return nil
	}
	w := make([]float64, len(obs))
	for i, o := range obs {
		w[i] = max(0, (o.Latency - base).Seconds())
	}
	return w
}

// sizes finds the sizes b for which at most tolerance observations are wrong:
// an allowed request of need > b, or a refused one of need ≤ b, plus held (the
// holds already wrong); ok false when none. Needs are small whole numbers (a
// request can need at most one more than the requests before it in its state,
// twice that for a sliding counter), so they are counted, not sorted: O(n).
func sizes(obs []Observation, need []int64, held, tolerance int, sc *scratch) (Point, bool) {
	top := int64(1)
	for _, x := range need {
		top = max(top, x)
	}
	top = min(top, int64(4*len(need)+8)) // a larger need is as large as any size here
	sc.allowed = resize(sc.allowed, int(top)+2)
	sc.refused = resize(sc.refused, int(top)+2)
	totalAllowed := 0
	for i, o := range obs {
		x := min(need[i], top)
		if o.Refused {
			sc.refused[x]++
		} else {
			sc.allowed[x]++
			totalAllowed++
		}
	}
	// for b from 1 to top: allowed with need > b, refused with need ≤ b
	p := Point{Lo: Unbounded, Mismatch: math.MaxInt}
	var fewest []int64
	allowedUpTo, refusedUpTo := sc.allowed[0], sc.refused[0]
	for b := int64(1); b <= top; b++ {
		allowedUpTo += sc.allowed[b]
		refusedUpTo += sc.refused[b]
		m := held + totalAllowed - allowedUpTo + refusedUpTo
		switch {
		case m < p.Mismatch:
			p.Mismatch, fewest = m, append(fewest[:0], b)
		case m == p.Mismatch:
			fewest = append(fewest, b)
		}
		if m <= tolerance {
			p.Lo, p.Hi = min(p.Lo, b), b
		}
	}
	if p.Lo == Unbounded {
		return p, false
	}
	p.Size = fewest[len(fewest)/2]
	if fewest[len(fewest)-1] == top && len(fewest) > 1 {
		p.Size = fewest[0] // unbounded above: the least that fits
	}
	if p.Hi == top {
		p.Hi = Unbounded // past every need, every larger size decides the same
	}
	return p, true
}

// scratch is a variant's reusable counts.
type scratch struct{ allowed, refused []int }

// resize returns xs with n zeroed elements, reusing its memory.
func resize(xs []int, n int) []int {
	if cap(xs) < n {
		return make([]int, n)
	}
	xs = xs[:n]
	clear(xs)
	return xs
}
