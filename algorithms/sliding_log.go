package algorithms

import "time"

// SlidingLogName is the sliding log's name in scenario files and on the command
// line.
const SlidingLogName Name = "sliding-log"

// slidingLogPort is scripts/sliding_log.lua: per key a sorted set of accepted
// requests (":log") and a hash of their sum and sequence (":meta"); Args limit,
// period_us. Its reply is {allowed, limit − sum, retry_us, reset_us, 0}.
var slidingLogPort = &RedisPort{Script: "sliding_log", KeySuffixes: []string{":log", ":meta"}, Call: func(p Policy, _ Options) ScriptCall {
	call := callOf(p.Limit, int64(p.Period/Resolution))
	call.Decision = bucketReply(p, p.Limit, plainUnits)
	call.Level = func(r []int64) float64 { return plainUnits(r[1]) }
	return call
}}

// SlidingLog keeps, per key, the time and cost of every accepted request of the last
// Period, and accepts a request while the costs in the window (now − Period, now]
// plus its own stay within Limit. It is exact, never lets more than Limit through
// in any window, and costs one entry per accepted request: memory per key is bounded
// by Limit entries (each entry is at least one unit), and is the price of exactness.
//
// A denial's retry-after is the time until enough of the oldest entries leave the
// window. Time going backwards is clamped to the newest entry's time, so the log
// stays in order: a request stamped before it (a clock behind) is judged, and
// logged, at that time, and the waits it is told (RetryAfter, ResetAfter) are
// measured from its own clock, so it is accepted at now + RetryAfter.
type SlidingLog struct {
	policy   Policy
	periodUS int64
	keyed[logState]
	entries int64 // entries held over all keys
}

// logEntry is one accepted request: when, in µs, and how many units.
type logEntry struct{ at, cost int64 }

// logEntryBytes is an entry's size: a timestamp and a cost.
const logEntryBytes = 16

// logState is a key's log, oldest first, as a slice whose first head entries are
// already expired; sum is the cost of the live entries.
type logState struct {
	log  []logEntry
	head int
	sum  int64
}

// NewSlidingLog returns a sliding log enforcing p.
func NewSlidingLog(p Policy) *SlidingLog {
	p = p.WithDefaults()
	return &SlidingLog{policy: p, periodUS: int64(p.Period / Resolution), keyed: newKeyed[logState]()}
}

func (l *SlidingLog) Algorithm() Name   { return SlidingLogName }
func (l *SlidingLog) Policy() Policy    { return l.policy }
func (l *SlidingLog) StateBytes() int64 { return l.keyBytes + l.entries*logEntryBytes }

// Allow decides atomically.
func (l *SlidingLog) Allow(key string, now time.Duration, cost int64) Decision {
	s, ok := l.state(key)
	if !ok {
		s = l.add(key, &logState{})
	}
	n := l.clamp(s, toMicros(now))
	l.expire(s, n)
	d := l.judge(s.log[s.head:], s.sum, key, n, toMicros(now), cost)
	if d.Allowed {
		if s.head > 0 && s.head >= len(s.log)/2 {
			s.log = append(s.log[:0], s.log[s.head:]...)
			s.head = 0
		}
		s.log = append(s.log, logEntry{at: n, cost: cost})
		s.sum += cost
		l.entries++
	}
	return d
}

// Check is what Allow would decide, read from the log without expiring or
// adding anything.
func (l *SlidingLog) Check(key string, now time.Duration, cost int64) Decision {
	s, ok := l.state(key)
	if !ok {
		return l.judge(nil, 0, key, toMicros(now), toMicros(now), cost)
	}
	n := l.clamp(s, toMicros(now))
	live, sum := s.log[s.head:], s.sum
	for len(live) > 0 && live[0].at <= n-l.periodUS {
		sum -= live[0].cost
		live = live[1:]
	}
	return l.judge(live, sum, key, n, toMicros(now), cost)
}

// judge is the decision at n (the request's time now, clamped to the newest
// entry's) on a log whose live entries (those in the window) are live, oldest
// first, costing sum in all. An accepted request's entry, at n, becomes the
// newest. Waits are measured from now.
func (l *SlidingLog) judge(live []logEntry, sum int64, key string, n, now, cost int64) Decision {
	d := Decision{Limit: l.policy.Limit}
	if sum+cost <= l.policy.Limit {
		d.Allowed = true
		d.Remaining = float64(l.policy.Limit - sum - cost)
		d.ResetAfter = fromMicros(n + l.periodUS - now)
		return d
	}
	if cost > l.policy.Limit {
		d.RetryAfter = Forever
	} else {
		excess := sum + cost - l.policy.Limit
		for _, e := range live {
			excess -= e.cost
			if excess <= 0 {
				d.RetryAfter = jitter(e.at+l.periodUS-now, JitterFactor(key, l.policy.RetryJitter))
				break
			}
		}
	}
	d.Remaining = float64(l.policy.Limit - sum)
	if len(live) > 0 {
		d.ResetAfter = fromMicros(live[len(live)-1].at + l.periodUS - now)
	}
	return d
}

// clamp returns n, or the newest entry's time if n is earlier.
func (l *SlidingLog) clamp(s *logState, n int64) int64 {
	if len(s.log) > s.head {
		return max(n, s.log[len(s.log)-1].at)
	}
	return n
}

// expire drops the entries that have left the window (now − Period, now].
func (l *SlidingLog) expire(s *logState, n int64) {
	for s.head < len(s.log) && s.log[s.head].at <= n-l.periodUS {
		s.sum -= s.log[s.head].cost
		s.head++
		l.entries--
	}
	if s.head == len(s.log) {
		s.log, s.head = s.log[:0], 0
	}
}

// Level is the units accepted in the window ending at now.
func (l *SlidingLog) Level(key string, now time.Duration) float64 {
	s, ok := l.state(key)
	if !ok {
		return 0
	}
	n := l.clamp(s, toMicros(now))
	var sum int64
	for _, e := range s.log[s.head:] {
		if e.at > n-l.periodUS {
			sum += e.cost
		}
	}
	return float64(sum)
}

// Evict forgets keys whose every entry has left the window.
func (l *SlidingLog) Evict(now time.Duration) int {
	n := toMicros(now)
	return l.evict(func(s *logState) bool {
		if len(s.log) == s.head || s.log[len(s.log)-1].at <= n-l.periodUS {
			l.entries -= int64(len(s.log) - s.head)
			return true
		}
		return false
	})
}
