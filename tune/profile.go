package tune

import (
	"math"
	"strings"

	"ratelab/traces"
)

// Profile is what the log says a key did, besides how much it sent: its
// requests by kind of path, its responses by status, its methods, the
// User-Agent it gave, and how regular its page requests are. It is built
// while the trace is read (LoadOptions.Profiles) from each line's method,
// path, status and User-Agent (traces.Detail), and read by the kind rules
// (kinds.go). A log without those fields (a CSV of time and key) gives
// profiles with only Requests, and every key is of KindUnknown.
type Profile struct {
	Requests int64
	// Detailed are the requests whose line had a path (the rest say nothing
	// of behaviour).
	Detailed int64
	// Assets are requests of a page's assets (traces.IsAsset: style, script,
	// images, fonts); Pages the rest; Feeds those of a feed (feed, rss, atom,
	// .xml).
	Assets, Pages, Feeds int64
	// Posts are POST requests; LoginPosts those to a path that signs in
	// (login, signin, auth, session, wp-login, xmlrpc).
	Posts, LoginPosts int64
	// responses: 2xx and 3xx; 401 and 403; 404 and 410; 429; other 4xx; 5xx
	OK, Denied, NotFound, TooMany, OtherClient, ServerError int64
	// PagesPerMinute is the most pages the key requested in one minute (the
	// clock's minutes: laid end to end from the epoch, or an undated log's start).
	PagesPerMinute int64
	// Agent is the first User-Agent the key gave; Agents how many distinct
	// ones (counted up to maxAgents).
	Agent  string
	Agents int
	// gaps between page requests, in seconds: their count, mean and sum of
	// squared deviations (Welford), and the last page request's time (µs)
	gapN           int64
	gapMean, gapM2 float64
	lastPage       int64
	agents         []string
	// the minute of the last page request, and its pages so far
	minute, inMinute int64
}

// maxAgents bounds the distinct User-Agents remembered per key.
const maxAgents = 8

// minGap is the shortest gap between page requests that counts towards
// regularity: requests within a second of each other are one visit's.
const minGap = 1e6 // µs

// add counts one request at µs at from the epoch (or an undated log's start).
func (p *Profile) add(at int64, d *traces.Detail) {
	p.Requests++
	if d.Path == "" {
		return
	}
	p.Detailed++
	switch {
	case traces.IsAsset(d.Path):
		p.Assets++
	default:
		p.Pages++
		if looksLikeFeed(d.Path) {
			p.Feeds++
		}
		if p.Pages > 1 {
			if gap := at - p.lastPage; gap >= minGap {
				p.gapN++
				x := float64(gap) / 1e6
				delta := x - p.gapMean
				p.gapMean += delta / float64(p.gapN)
				p.gapM2 += delta * (x - p.gapMean)
			}
		}
		p.lastPage = at
		if m := at / 60e6; m != p.minute || p.Pages == 1 {
			p.minute, p.inMinute = m, 0
		}
		p.inMinute++
		p.PagesPerMinute = max(p.PagesPerMinute, p.inMinute)
	}
	if strings.EqualFold(d.Method, "POST") {
		p.Posts++
		if looksLikeLogin(d.Path) {
			p.LoginPosts++
		}
	}
	switch s := d.Status; {
	case s == 401 || s == 403:
		p.Denied++
	case s == 404 || s == 410:
		p.NotFound++
	case s == 429:
		p.TooMany++
	case s >= 400 && s < 500:
		p.OtherClient++
	case s >= 500:
		p.ServerError++
	case s >= 200:
		p.OK++
	}
	if d.Agent != "" && p.Agents < maxAgents {
		for _, a := range p.agents {
			if a == d.Agent {
				return
			}
		}
		if p.Agent == "" {
			p.Agent = d.Agent
		}
		p.agents = append(p.agents, d.Agent)
		p.Agents++
	}
}

// Regularity is the coefficient of variation of the gaps between the key's
// page requests a second or more apart (standard deviation over mean): near 0
// for a poller at a fixed interval, near 1 for a person's random visits. ok is
// false with fewer than minRegularGaps gaps.
func (p *Profile) Regularity() (cv, meanSeconds float64, ok bool) {
	if p.gapN < minRegularGaps || p.gapMean <= 0 {
		return 0, 0, false
	}
	return math.Sqrt(p.gapM2/float64(p.gapN)) / p.gapMean, p.gapMean, true
}

// minRegularGaps are the gaps a key needs before its regularity is judged.
const minRegularGaps = 8

// looksLikeFeed says a path is a syndication feed's.
func looksLikeFeed(path string) bool {
	p := strings.ToLower(path)
	return strings.HasSuffix(p, ".xml") || strings.HasSuffix(p, ".rss") || strings.HasSuffix(p, ".atom") ||
		strings.Contains(p, "/feed") || strings.Contains(p, "/rss") || strings.Contains(p, "/atom")
}

// loginWords are in the paths that sign a user in.
var loginWords = []string{"login", "signin", "sign-in", "sign_in", "logon", "auth", "session", "wp-login", "xmlrpc", "password", "token"}

// looksLikeLogin says a path signs a user in.
func looksLikeLogin(path string) bool {
	p := strings.ToLower(path)
	for _, w := range loginWords {
		if strings.Contains(p, w) {
			return true
		}
	}
	return false
}
