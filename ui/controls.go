package ui

import (
	"fmt"
	"strconv"
	"time"

	"ratelab/sim"
)

// controls are the live traffic controls: requests sent by hand (x, X, for the key
// k cycles to), a client's rate (c picks the client, < > change its rate), its retry
// policy (R), the clock-skew fix of every token-bucket lane (F), a backend glitch
// (G). Each is an input made at the current virtual time in every lane alike (see
// sim.Input) and recorded by the runner, so the session replays exactly and saves
// as a scenario file (S).
type controls struct {
	client int // the client < > and R change
	key    int // the hand client's key x and X send for
	rates  map[int]float64
	retry  map[int]int // index into retryChoices, per client changed
	fix    sim.ClockFix
	glitch bool
}

// retryChoices are the retry policies R cycles through.
var retryChoices = []struct {
	name  string
	retry sim.Retry
}{
	{"none", sim.Retry{Policy: sim.RetryNone, MaxAttempts: 1}},
	{"immediate", sim.Retry{Policy: sim.RetryImmediate, Delay: 100 * time.Millisecond, Cap: 10 * time.Second, MaxAttempts: 8, OnDeny: true, OnError: true}},
	{"exponential, full jitter", sim.Retry{Policy: sim.RetryExponential, Delay: 100 * time.Millisecond, Cap: 5 * time.Second, Jitter: sim.JitterFull, MaxAttempts: 8, OnDeny: true, OnError: true}},
	{"honour Retry-After", sim.Retry{Policy: sim.RetryHonour, Delay: 100 * time.Millisecond, Cap: 10 * time.Second, MaxAttempts: 8, OnDeny: true, OnError: true}},
}

// reset sets the controls for cfg's clients: the first one whose rate can change
// (a hand client first), its first key.
func (c *controls) reset(cfg *sim.Config) {
	*c = controls{rates: map[int]float64{}, retry: map[int]int{}}
	if cfg == nil {
		return
	}
	if h := handClient(cfg); h >= 0 {
		c.client = h
		return
	}
	for i, cl := range cfg.Clients {
		if rateOf(cl) >= 0 {
			c.client = i
			return
		}
	}
}

// handClient is the first hand client of cfg, or -1.
func handClient(cfg *sim.Config) int {
	for i, cl := range cfg.Clients {
		if _, ok := cl.Pattern.(sim.Hand); ok {
			return i
		}
	}
	return -1
}

// rateOf is a client's configured rate in requests per second, -1 when its pattern
// has none to change.
func rateOf(cl sim.Client) float64 {
	switch p := cl.Pattern.(type) {
	case sim.Constant:
		return p.Rate
	case sim.Poisson:
		return p.Rate
	case sim.Ramp:
		return p.From
	case sim.Hand:
		return 0
	}
	return -1
}

// rate is client ci's rate now.
func (c *controls) rate(cfg *sim.Config, ci int) float64 {
	if r, ok := c.rates[ci]; ok {
		return r
	}
	return rateOf(cfg.Clients[ci])
}

// nextRate is the rate one step up (×1.5, from 0 to 1 a second) or down (÷1.5,
// to 0 below 1 a second).
func nextRate(r float64, up bool) float64 {
	switch {
	case up && r <= 0:
		return 1
	case up:
		return roundRate(r * 1.5)
	case r/1.5 < 1:
		return 0
	}
	return roundRate(r / 1.5)
}

// roundRate keeps a rate readable: three significant digits.
func roundRate(r float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(r, 'g', 3, 64), 64)
	return v
}

// line is the controls' status: what each key changes, and its value now.
func (c *controls) line(cfg *sim.Config, recorded int) string {
	if cfg == nil || len(cfg.Clients) == 0 {
		return ""
	}
	cl := cfg.Clients[c.client]
	s := ""
	if h := handClient(cfg); h >= 0 {
		s = fmt.Sprintf("x/X send 1/10 for %s (k: next key) · ", cfg.Keys[cfg.Clients[h].Keys[c.key]].Name)
	}
	rate := "no rate"
	if r := c.rate(cfg, c.client); r >= 0 {
		rate = fmt.Sprintf("%s/s (< >)", compactFloat(r))
	}
	retry := retryName(cl.Retry)
	if i, ok := c.retry[c.client]; ok {
		retry = retryChoices[i].name
	}
	s += fmt.Sprintf("c: client %s %s · R retry %s · F clock fix %s", cl.Name, rate, retry, c.fix)
	if cfg.Backend != nil {
		glitch := "off"
		if c.glitch {
			glitch = "on"
		}
		s += " · G glitch " + glitch
	}
	return s + fmt.Sprintf(" · %d recorded (S saves)", recorded)
}

// retryName names a configured retry policy.
func retryName(r sim.Retry) string {
	switch r.Policy {
	case sim.RetryImmediate:
		return "immediate"
	case sim.RetryFixed:
		return "fixed"
	case sim.RetryExponential:
		return "exponential"
	case sim.RetryHonour:
		return "honour Retry-After"
	}
	return "none"
}
