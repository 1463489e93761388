package redislua

import (
	"time"

	"ratelab/algorithms"
)

// port is how one limiter calls its algorithm's script and reads the answers: the
// algorithm's algorithms.ScriptCall (its Redis port, Info.Redis, declared beside
// the algorithm) plus the keys' expiry, which is this package's. The argument list
// is built here only, for the simulated lanes and the live benchmark alike.
type port struct {
	call algorithms.ScriptCall
	// args are the call's arguments after now and cost: the policy's, then the
	// expiry in ms.
	args []any
}

// portOf returns the port of the algorithm info enforcing p with o; info must have
// a Redis port.
func portOf(info algorithms.Info, p algorithms.Policy, o algorithms.Options) port {
	call := info.Redis.Call(p.WithDefaults(), o)
	args := append(append(make([]any, 0, len(call.Args)+1), call.Args...), keyTTL.Milliseconds())
	return port{call: call, args: args}
}

// setMonotonic switches the token bucket's max(now, ts) fix in later calls.
func (p *port) setMonotonic(on bool) {
	if i := p.call.MonotonicArg; i >= 0 {
		p.args[i] = 0
		if on {
			p.args[i] = 1
		}
	}
}

// argv is the arguments of a call for key at now, of cost, in mode.
func (p *port) argv(key string, now time.Duration, cost int64, mode string) []any {
	args := make([]any, 0, 3+len(p.args))
	args = append(args, algorithms.Micros(now), cost)
	args = append(args, p.args...)
	if i := p.call.PerKeyArg; i >= 0 {
		args[2+i] = p.call.PerKey(key)
	}
	return append(args, mode)
}

// decision decodes an 'allow' or 'check' reply for key.
func (p *port) decision(key string, r []int64) algorithms.Decision { return p.call.Decision(key, r) }

// level is the level in a 'level' reply.
func (p *port) level(r []int64) float64 { return p.call.Level(r) }
