package algorithms

import "time"

// UnlimitedName is the no-limit lane's name in scenario files and on the command
// line.
const UnlimitedName Name = "none"

// Unlimited is the baseline lane: no limit at all, every request allowed at once.
// It keeps no state; its decisions carry the policy's burst as Remaining, so
// headers stay well-formed. A scenario uses it to show what the traffic does to the
// service behind the limiter when nothing refuses it.
type Unlimited struct{ policy Policy }

// NewUnlimited returns the no-limit lane; p only labels its decisions.
func NewUnlimited(p Policy) *Unlimited { return &Unlimited{policy: p.WithDefaults()} }

func (u *Unlimited) Algorithm() Name                     { return UnlimitedName }
func (u *Unlimited) Policy() Policy                      { return u.policy }
func (u *Unlimited) Level(string, time.Duration) float64 { return 0 }
func (u *Unlimited) Keys() int                           { return 0 }
func (u *Unlimited) StateBytes() int64                   { return 0 }
func (u *Unlimited) Evict(time.Duration) int             { return 0 }

// Allow allows.
func (u *Unlimited) Allow(string, time.Duration, int64) Decision {
	return Decision{Allowed: true, Remaining: float64(u.policy.Burst), Limit: u.policy.Burst}
}

// Check is what Allow would decide: allowed.
func (u *Unlimited) Check(key string, now time.Duration, cost int64) Decision {
	return u.Allow(key, now, cost)
}
