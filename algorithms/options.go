package algorithms

import (
	"fmt"
	"slices"
	"strings"
)

// Options are the per-algorithm knobs on top of a Policy. Each applies to the
// algorithms whose Info.Options name it and is ignored by the others; Check says
// so when one is set for an algorithm it does not apply to.
type Options struct {
	// RandomStart offsets each key's fixed windows by a share of the period taken
	// from the key's hash (window_start = "random").
	RandomStart bool
	// Rollover is the most unused units a fixed window carries into the next.
	Rollover int64
	// Mode is queue (shaping) or meter (policing).
	Mode LeakyMode
	// MonotonicTimestamp stores max(now, ts) rather than now, so a node whose
	// clock is behind cannot move the stored time back.
	MonotonicTimestamp bool
	// MaxReserved lets a token bucket's balance go this far negative: requests are
	// accepted with a Delay until their tokens exist.
	MaxReserved int64
}

// set lists the options o sets, by their scenario keys.
func (o Options) set() []string {
	var keys []string
	if o.RandomStart {
		keys = append(keys, `window_start = "random"`)
	}
	if o.Rollover != 0 {
		keys = append(keys, "rollover")
	}
	if o.Mode != LeakyQueue {
		keys = append(keys, "mode")
	}
	if o.MaxReserved != 0 {
		keys = append(keys, "max_reserved")
	}
	return keys
}

// Check returns an error naming an option set for an algorithm it does not apply
// to, so a misplaced knob is not silently ignored, or a value out of range.
// MonotonicTimestamp is a default, not a choice, and is not checked here.
func (o Options) Check(algorithm string) error {
	a, err := Get(algorithm)
	if err != nil {
		return err
	}
	for _, key := range o.set() {
		name, _, _ := strings.Cut(key, " ")
		if !slices.Contains(a.Options, name) {
			return fmt.Errorf("%s applies to %s only (this lane runs %s)", key, owners(name), algorithm)
		}
	}
	switch {
	case o.Rollover < 0:
		return fmt.Errorf("rollover must be >= 0 (got %d)", o.Rollover)
	case o.MaxReserved < 0:
		return fmt.Errorf("max_reserved must be >= 0 (got %d)", o.MaxReserved)
	}
	return nil
}

// owners names the algorithms an option applies to.
func owners(option string) string {
	var names []string
	for _, a := range registry {
		if slices.Contains(a.Options, option) {
			names = append(names, a.Name)
		}
	}
	return strings.Join(names, " and ")
}
