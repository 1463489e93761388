package algorithms

import (
	"fmt"
	"time"
)

// Options are the per-algorithm knobs on top of a Policy. Each applies to the
// algorithms whose Info.Options declare its key and is ignored by the others;
// Check says so when one is set for an algorithm it does not apply to. The zero
// Options is every knob at its default but the token bucket's timestamp fix,
// which Info.Defaults turns on.
//
// A field's tag `key` is its key in a scenario's lane table, the one place the
// key is written: the scenario schema's OptionsSpec and its copy into Options
// are generated from these fields (scenarios/internal/genoptions), and the
// Option an algorithm declares names the same key.
type Options struct {
	// RandomStart offsets each key's fixed windows by a share of the period taken
	// from the key's hash (window_start = "random").
	RandomStart bool `key:"window_start"`
	// Rollover is the most unused units a fixed window carries into the next.
	Rollover int64 `key:"rollover"`
	// Mode is queue (shaping) or meter (policing).
	Mode LeakyMode `key:"mode"`
	// LeaveAbandoned makes a leaky queue drop a request whose client stopped
	// waiting before its turn (abandoned = "leave"; false: "keep", nginx's way).
	LeaveAbandoned bool `key:"abandoned"`
	// MonotonicTimestamp stores max(now, ts) rather than now, so a node whose
	// clock is behind cannot move the stored time back.
	MonotonicTimestamp bool `key:"monotonic_timestamp"`
	// MaxReserved lets a token bucket's balance go this far negative: requests are
	// accepted with a Delay until their tokens exist.
	MaxReserved int64 `key:"max_reserved"`
	// Warmup makes the guava lane SmoothWarmingUp over this long (0: SmoothBursty).
	Warmup time.Duration `key:"warmup"`
	// AcquireTimeout is how far ahead the guava lane's next free ticket may be for
	// a request to be accepted, and wait (tryAcquire's timeout).
	AcquireTimeout time.Duration `key:"acquire_timeout"`
	// EnvoyVersion is the Envoy release the envoy-local lane runs ("1.30": the
	// timer bucket; "" or "1.31" and later: the timer-free one).
	EnvoyVersion string `key:"envoy_version"`
	// ConfigLoadAt is when the envoy-local lane's config was loaded, from the run's
	// start: its fill timer fires every fill_interval after it.
	ConfigLoadAt time.Duration `key:"config_load_at"`
	// TrackSC is where the haproxy lane's http-request track-sc0 sits relative
	// to its deny: before it (denied requests are counted) or after it.
	TrackSC HAProxyTrack `key:"track_sc"`
	// Expire is the haproxy lane's stick-table expire: an entry no request has
	// tracked for this long is gone (0: entries never expire).
	Expire time.Duration `key:"expire"`
	// DenyStatus is the HTTP status a product lane answers a refused request with
	// (nginx's limit_req_status); 0, the product's default (algorithms.Info.Status).
	DenyStatus int `key:"deny_status"`
	// HAProxyVersion is the HAProxy release the haproxy lane runs ("2.2.11"; "":
	// the newest).
	HAProxyVersion string `key:"haproxy_version"`
	// Nodelay is nginx's limit_req nodelay: requests within the burst go at once.
	Nodelay bool `key:"nodelay"`
	// Delay is nginx's limit_req delay=N (1.15.7+), in requests: the excess up to
	// N goes at once, beyond it requests are delayed; 0, every excess request is.
	Delay int64 `key:"delay"`
	// DryRun is nginx's limit_req_dry_run on: every request passes, at once, and
	// is charged as it would have been (Decision.Shadow says what nginx logs).
	DryRun bool `key:"dry_run"`
	// ShadowMode is the envoy-global lane's shadow_mode: a request over the
	// limit is answered OK (Decision.Shadow says so) and counted.
	ShadowMode bool `key:"shadow_mode"`
	// MitigationTimeout is the cloudflare lane's mitigation_timeout: once a key's
	// rate passes the limit, all its requests are blocked this long (0: throttle).
	MitigationTimeout time.Duration `key:"mitigation_timeout"`
	// CountBlocked makes the cloudflare lane count blocked requests too.
	CountBlocked bool `key:"count_blocked"`
	// QuotaLimit, QuotaPeriod and QuotaOffset are the api-gateway lane's usage-plan
	// quota (QuotaSettings): QuotaLimit requests per QuotaPeriod, QuotaOffset
	// fewer in the initial period; QuotaNone, no quota.
	QuotaLimit  int64       `key:"quota_limit"`
	QuotaPeriod QuotaPeriod `key:"quota_period"`
	QuotaOffset int64       `key:"quota_offset"`
	// KongPolicy is where the kong lane's counters live and when they count
	// (config.policy: local, cluster or redis).
	KongPolicy KongPolicy `key:"kong_policy"`
	// KongWindows are the kong lane's limits beyond the policy's own window:
	// per second, minute, hour, day, month and year (0: none).
	KongWindows KongWindows `key:"kong_windows"`
	// KongIncrementDelay is how long after its decision an allowed request's
	// increment lands in the kong lane's counters (local and cluster).
	KongIncrementDelay time.Duration `key:"kong_increment_delay"`
	// HideClientHeaders is the kong lane's config.hide_client_headers: its
	// responses carry no rate-limit header, Retry-After neither.
	HideClientHeaders bool `key:"hide_client_headers"`
}

// Option is a scenario key an algorithm takes beyond the policy, declared in the
// algorithm's own file and listed in its Info.Options.
type Option struct {
	// Key is the key in a scenario's [[scenario.lane]] table.
	Key string
	// Doc says what it does, its values and its default, in a line.
	Doc string
	// set says o sets the option away from its default, and how (the text a
	// message shows: `window_start = "random"`, "rollover"); "" when it does not.
	// nil for a choice whose default belongs to the algorithm (Info.Defaults)
	// rather than to the lane, which Check does not police.
	set func(o Options) string
}

// Check returns an error naming an option set for an algorithm it does not apply
// to, so a misplaced knob is not silently ignored, or a value out of range.
func (o Options) Check(algorithm Name) error {
	a, err := Get(algorithm)
	if err != nil {
		return err
	}
	for _, opt := range allOptions() {
		if opt.set == nil {
			continue
		}
		if how := opt.set(o); how != "" && !a.TakesOption(opt.Key) {
			return NotTaken(opt.Key, how, algorithm)
		}
	}
	switch {
	case o.Rollover < 0:
		return &OptionError{"rollover", fmt.Errorf("rollover must be >= 0 (got %d)", o.Rollover)}
	case o.MaxReserved < 0:
		return &OptionError{"max_reserved", fmt.Errorf("max_reserved must be >= 0 (got %d)", o.MaxReserved)}
	case o.Warmup < 0 || o.Warmup%Resolution != 0:
		return &OptionError{"warmup", fmt.Errorf("warmup must be >= 0 and a whole number of microseconds (got %s)", o.Warmup)}
	case o.ConfigLoadAt%Resolution != 0:
		return &OptionError{"config_load_at", fmt.Errorf("config_load_at must be a whole number of microseconds (got %s)", o.ConfigLoadAt)}
	case o.AcquireTimeout < 0 || o.AcquireTimeout%Resolution != 0:
		return &OptionError{"acquire_timeout", fmt.Errorf("acquire_timeout must be >= 0 and a whole number of microseconds (got %s)", o.AcquireTimeout)}
	case o.Delay < 0:
		return &OptionError{"delay", fmt.Errorf("delay must be a number of requests >= 0 (got %d)", o.Delay)}
	case o.Delay > 0 && o.Nodelay:
		return &OptionError{"delay", fmt.Errorf("delay = %d and nodelay = true contradict: nodelay delays no request, delay = N delays those beyond the first N of the excess; keep one", o.Delay)}
	case algorithm == NginxName && o.DenyStatus != 0 && (o.DenyStatus < 400 || o.DenyStatus > 599): // limit_req_status; haproxy, cloudflare and kong check their own
		return &OptionError{"deny_status", fmt.Errorf("deny_status must be an HTTP error status from 400 to 599 (got %d)", o.DenyStatus)}
	case o.KongIncrementDelay < 0 || o.KongIncrementDelay%Resolution != 0:
		return &OptionError{"kong_increment_delay", fmt.Errorf("kong_increment_delay must be >= 0 and a whole number of microseconds (got %s)", o.KongIncrementDelay)}
	case o.KongIncrementDelay != 0 && o.KongPolicy == KongRedis:
		return &OptionError{"kong_increment_delay", fmt.Errorf(`kong_increment_delay applies to kong_policy = "local" and "cluster": with "redis" the count is an INCR made before the decision`)}
	}
	for w, limit := range o.KongWindows {
		if limit < 0 {
			return &OptionError{"kong_windows", fmt.Errorf("kong_windows: %s must be > 0 (got %d)", KongWindowNames[w], limit)}
		}
	}
	if _, err := EnvoyTimerBucket(o.EnvoyVersion); err != nil {
		return &OptionError{"envoy_version", err}
	}
	if _, err := ParseHAProxyVersion(o.HAProxyVersion); err != nil {
		return &OptionError{"haproxy_version", err}
	}
	if err := haproxyExpireCheck(o); err != nil {
		return err
	}
	if algorithm == HAProxyName {
		return haproxyCheck(o)
	}
	return nil
}

// OptionError is an option set for an algorithm it does not apply to, or set out
// of range; Key is the option's scenario key, for the message's place.
type OptionError struct {
	Key string
	Err error
}

func (e *OptionError) Error() string { return e.Err.Error() }

// NotTaken is the error for the option called key, set as how says
// (`window_start = "random"`, "rollover"), on a lane running algorithm, which
// does not take it.
func NotTaken(key, how string, algorithm Name) *OptionError {
	return &OptionError{key, fmt.Errorf("%s applies to %s only (this lane runs %s)", how, Join(Owners(key), " and "), algorithm)}
}

// Owners lists the algorithms that take the option called key.
func Owners(key string) []Name { return Where(func(a Info) bool { return a.TakesOption(key) }) }

// OptionKeys lists every algorithm's option keys, each once, in registry order.
func OptionKeys() []string {
	var keys []string
	for _, o := range allOptions() {
		keys = append(keys, o.Key)
	}
	return keys
}

// OptionList is every algorithm's options, each key once, in registry order.
func OptionList() []Option { return allOptions() }

// allOptions is every algorithm's options, each key once, in registry order.
func allOptions() []Option {
	var all []Option
	seen := map[string]bool{}
	for _, a := range registry {
		for _, o := range a.Options {
			if !seen[o.Key] {
				seen[o.Key] = true
				all = append(all, o)
			}
		}
	}
	return all
}

// setIf is how when it is set, else "".
func setIf(set bool, how string) string {
	if set {
		return how
	}
	return ""
}

// Ideal is o for one limiter synchronised instantly: what a deployment is
// held against (package deploy's Score). A product's late increment (Kong's
// kong_increment_delay, the cluster policy's timer) is a gap between two
// nodes' view of one count, made immediate; every other option is the
// product's decision itself and stays.
func (o Options) Ideal() Options {
	o.KongIncrementDelay = 0
	return o
}
