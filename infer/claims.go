package infer

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Claim is what a server's rate-limit headers say of its limit: a quota and,
// when they tell it, its window. Headers are used, never trusted: Holds says
// whether some consistent hypothesis has that quota (and window).
type Claim struct {
	Header string        `json:"header"`              // the header that said it, as sent
	Quota  int64         `json:"quota"`               // the requests it allows
	Window time.Duration `json:"window_ns,omitempty"` // 0 when the header does not say
	Holds  bool          `json:"holds"`
	// Why says what the fit found instead, when it does not hold.
	Why string `json:"why,omitempty"`
}

// maxClaimWindow is the longest window, in seconds, a claim is read with (a
// year); a longer one is read as no window.
const maxClaimWindow = 366 * 24 * 3600

// ClaimsFrom reads the distinct quotas the responses' headers state: the IETF
// draft's RateLimit-Policy (q and w) and RateLimit-Limit, and the
// X-RateLimit-Limit many APIs send (Envoy's with its ";w=").
func ClaimsFrom(hs []http.Header) []Claim {
	var out []Claim
	seen := map[string]bool{}
	add := func(c Claim) {
		k := fmt.Sprint(c.Header, c.Quota, c.Window)
		if c.Quota > 0 && !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	for _, h := range hs {
		if v := h.Get("RateLimit-Policy"); v != "" {
			for _, member := range strings.Split(v, ",") {
				c := Claim{Header: "RateLimit-Policy"}
				for _, p := range strings.Split(member, ";") {
					k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
					switch k {
					case "q":
						c.Quota, _ = strconv.ParseInt(val, 10, 64)
					case "w":
						if s, err := strconv.ParseInt(val, 10, 64); err == nil && s > 0 && s <= maxClaimWindow {
							c.Window = time.Duration(s) * time.Second
						}
					}
				}
				add(c)
			}
		}
		for _, name := range []string{"RateLimit-Limit", "X-RateLimit-Limit"} {
			v := h.Get(name)
			if v == "" {
				continue
			}
			c := Claim{Header: name}
			first, rest, _ := strings.Cut(v, ",")
			c.Quota, _ = strconv.ParseInt(strings.TrimSpace(first), 10, 64)
			if i := strings.Index(rest, "w="); i >= 0 {
				w := rest[i+2:]
				if j := strings.IndexAny(w, ";, "); j >= 0 {
					w = w[:j]
				}
				if s, err := strconv.ParseInt(w, 10, 64); err == nil && s > 0 && s <= maxClaimWindow {
					c.Window = time.Duration(s) * time.Second
				}
			}
			add(c)
		}
	}
	return out
}

// checkClaims says of each claim whether a consistent hypothesis agrees: its
// size is the quota, or (for a quota per window) its rate is the quota over the
// window — a window the headers write in whole seconds, so within half a
// second of it.
func checkClaims(claims []Claim, fits []VariantFit) []Claim {
	out := append([]Claim(nil), claims...)
	for i, c := range out {
		for _, f := range fits {
			lo, hi := f.Burst()
			if c.Quota >= lo && c.Quota <= hi {
				out[i].Holds = true
			}
			if c.Window > 0 {
				rlo, rhi := f.Rate()
				w := c.Window.Seconds()
				qlo, qhi := float64(c.Quota)/(w+0.5), float64(c.Quota)/max(w-0.5, w/2)
				if c.Window%time.Second != 0 {
					qlo, qhi = float64(c.Quota)/w*0.99, float64(c.Quota)/w*1.01
				}
				if qhi >= rlo && qlo <= rhi {
					out[i].Holds = true
				}
			}
		}
		if !out[i].Holds {
			out[i].Why = "no consistent hypothesis allows that"
			if len(fits) > 0 {
				lo, hi := fits[0].Burst()
				rlo, rhi := fits[0].Rate()
				out[i].Why = fmt.Sprintf("the best fit (%s) allows %s at %s", fits[0].Name(), sizeRange(lo, hi), rateRange(rlo, rhi))
			}
		}
	}
	return out
}

// sizeRange says an interval of sizes: "14", "12 to 16", "at least 3".
func sizeRange(lo, hi int64) string {
	switch {
	case hi == Unbounded:
		return fmt.Sprintf("at least %d", lo)
	case lo == hi:
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}
