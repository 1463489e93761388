package redislua

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"ratelab/algorithms"
)

// Set is limiters on one store called together (algorithms.Set): the shards of a
// lane, or its limits. A batch of calls goes to Redis in one pipeline — Redis runs
// them one after another, so each sees what the ones before it left, as with one
// call each — and an all-or-nothing group is one script over every key of its
// limits (AllOrNothingScript), which on a Redis Cluster needs those keys in one
// slot. Only NOSCRIPT is ever sent again (the call did not run).
type Set struct {
	store *Store
	parts []*Limiter
	as    []algorithms.Limiter
	all   *redis.Script // the all-or-nothing script, this set's own copy

	allLoaded bool // all is known to be loaded
}

var _ algorithms.Set = (*Set)(nil)

// JoinSet joins parts, Redis limiters on l's store, into a Set.
func (l *Limiter) JoinSet(parts []algorithms.Limiter) (algorithms.Set, bool) {
	s := &Set{store: l.store, as: parts}
	for _, p := range parts {
		rl, ok := p.(*Limiter)
		if !ok || rl.store != l.store {
			return nil, false
		}
		s.parts = append(s.parts, rl)
	}
	s.all = redis.NewScript(AllOrNothingScript() + "\n-- ratelab set " + l.store.Prefix + ":" + l.cfg.Lane + "\n")
	return s, true
}

// Parts are the limiters.
func (s *Set) Parts() []algorithms.Limiter { return s.as }

// do makes calls to l alone: a set of one.
func (l *Limiter) do(calls []algorithms.Call, out []algorithms.Decision) {
	(&Set{store: l.store, parts: []*Limiter{l}}).Do(calls, out)
}

// Do makes calls in order, in one round trip (see algorithms.Set). A call Redis
// failed decides by its limiter's on_error, and is counted as that limiter's.
func (s *Set) Do(calls []algorithms.Call, out []algorithms.Decision) {
	ctx := s.store.ctx
	cmds := make([]*redis.Cmd, len(calls)) // nil: not sent
	var heads []int                        // the calls that are sent: all but a group's followers
	needAll := false                       // a group is sent: the all-or-nothing script is needed
	for i := 0; i < len(calls); i += groupLen(calls[i]) {
		heads = append(heads, i)
		needAll = needAll || calls[i].Mode == algorithms.ModeAll
	}
	send := func(which []int) {
		pipelined(ctx, s.store.client, len(which), func(pipe redis.Pipeliner, j int) {
			i := which[j]
			c := calls[i]
			if c.Mode == algorithms.ModeAll {
				keys, args := s.groupArgs(calls[i : i+groupLen(c)])
				cmds[i] = s.all.EvalSha(ctx, pipe, keys, args...)
				return
			}
			l := s.parts[c.Part]
			mode := "allow"
			if c.Mode == algorithms.ModeCheck {
				mode = "check"
			}
			cmds[i] = l.script.EvalSha(ctx, pipe, l.redisKeys(c.Req.Key), l.argv(c.Req.Key, c.Req.Now, c.Req.Cost, mode)...)
		})
	}
	// Every script the batch may use is loaded first, so no call of it fails with
	// NOSCRIPT while a later one runs: that would reorder calls on shared keys
	// (a limit's own script and the all-or-nothing one touch the same keys).
	scriptsOK := s.preload(ctx, needAll)
	if scriptsOK {
		send(heads)
	}
	// NOSCRIPT all the same (a SCRIPT FLUSH, a restart): the call did not run;
	// load the scripts again and send those calls again, in order. Any other
	// error may have spent tokens and is not replayed.
	var again []int
	for _, i := range heads {
		if cmds[i] == nil || redis.HasErrorPrefix(cmds[i].Err(), "NOSCRIPT") {
			again = append(again, i)
		}
	}
	if len(again) > 0 && scriptsOK {
		s.forget()
		if s.preload(ctx, needAll) {
			send(again)
		}
	}
	failed := false
	for _, i := range heads {
		c := calls[i]
		var r []int64
		err := errNotSent
		if cmds[i] != nil {
			r, err = cmds[i].Int64Slice()
		}
		if c.Mode != algorithms.ModeAll {
			if err != nil {
				out[i], failed = s.parts[c.Part].failure(), true
				continue
			}
			out[i] = s.parts[c.Part].decision(c.Req.Key, r)
			continue
		}
		pos := 0
		for j, g := range calls[i : i+groupLen(c)] {
			if err != nil || pos >= len(r) || pos+1+int(r[pos]) > len(r) {
				out[i+j], failed = s.parts[g.Part].failure(), true
				continue
			}
			n := int(r[pos])
			out[i+j] = s.parts[g.Part].decision(g.Req.Key, r[pos+1:pos+1+n])
			pos += 1 + n
		}
	}
	for _, p := range s.parts {
		p.unavailable.Store(failed)
	}
}

// errNotSent is a call never sent, because its script could not be loaded.
var errNotSent = errors.New("not sent: the script could not be loaded")

// preload loads every script of the set not known to be loaded (SCRIPT LOAD, one
// round trip each, once) — the all-or-nothing one only when needAll — and says
// whether all are.
func (s *Set) preload(ctx context.Context, needAll bool) bool {
	for _, p := range s.parts {
		if !p.scriptLoaded {
			p.scriptLoaded = p.script.Load(ctx, s.store.client).Err() == nil
			if !p.scriptLoaded {
				return false
			}
		}
	}
	if needAll && !s.allLoaded {
		s.allLoaded = s.all.Load(ctx, s.store.client).Err() == nil
	}
	return !needAll || s.allLoaded
}

// forget marks every script of the set as to be loaded again.
func (s *Set) forget() {
	for _, p := range s.parts {
		p.scriptLoaded = false
	}
	s.allLoaded = false
}

// groupLen is how many calls c heads: its group's size, or 1.
func groupLen(c algorithms.Call) int {
	if c.Mode == algorithms.ModeAll {
		return max(1, c.Group)
	}
	return 1
}

// groupArgs are the keys and arguments of an all-or-nothing group's script call.
func (s *Set) groupArgs(group []algorithms.Call) ([]string, []any) {
	var keys []string
	args := []any{len(group)}
	for _, g := range group {
		l := s.parts[g.Part]
		k := l.redisKeys(g.Req.Key)
		own := l.argv(g.Req.Key, g.Req.Now, g.Req.Cost, "check")
		keys = append(keys, k...)
		args = append(args, l.scriptName, len(k), len(own))
		args = append(args, own...)
	}
	return keys, args
}

// AllOrNothingScript is the all-or-nothing script as Redis loads it: the shared
// prelude, every algorithm's own script wrapped as a function, and
// scripts/all_or_nothing.lua, which runs them over several limits.
func AllOrNothingScript() string {
	common, _ := scriptFiles.ReadFile("scripts/common.lua")
	var b strings.Builder
	b.Write(common)
	b.WriteString("\nlocal algorithms = {}\n")
	for _, a := range algorithms.All() {
		if a.Redis == nil {
			continue
		}
		own, _ := scriptFiles.ReadFile("scripts/" + a.Redis.Script + ".lua")
		fmt.Fprintf(&b, "algorithms[%q] = function(KEYS, ARGV)\n%s\nend\n", a.Redis.Script, own)
	}
	main, _ := scriptFiles.ReadFile("scripts/all_or_nothing.lua")
	b.Write(main)
	return b.String()
}
