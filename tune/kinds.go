package tune

import (
	"fmt"
	"strings"
	"time"

	"ratelab/internal/format"
)

// A key's kind is what its Profile says it looks like: a scanner, a credential
// stuffer, a crawler, a feed reader, a browser, a scraper, an ordinary
// client. Kinds are told by Rules, in order, the first that matches; each says
// why in the log's own terms, so a site owner can check it. A kind is
// Abusive when its behaviour, not its volume, is what a limit is for: the
// abuse goal holds those keys and refuses no other (see Goal).

// A Rule tells one kind of key from its profile.
type Rule struct {
	Kind    string
	Abusive bool
	// Match says the key is of this kind, and why, in a phrase ("416 of 430
	// requests answered 404"); heavy says the key stands out over some period
	// swept (a heavy hitter, not only one of the heaviest 1% by volume).
	Match func(p *Profile, heavy bool) (why string, ok bool)
}

// The thresholds the rules use.
const (
	// minBehaviour is the fewest requests of a kind that say anything about
	// a key's behaviour
	minBehaviour = 10
	// assetsPerPage is how many assets a page view pulls, at least, on
	// average, for a key to be a browser
	assetsPerPage = 2
	// regularCV is the most coefficient of variation of a poller's gaps
	regularCV = 0.3
	// scraperPagesPerMinute are more pages in a minute than a person reads:
	// a key that fetches them without their assets is a scraper, whether or
	// not it stands out among the log's keys
	scraperPagesPerMinute = 30
)

// Rules are the kind rules, in the order they are tried; the last matches
// every key. Their order matters: a scanner that says it is a bot is a
// scanner.
var Rules = []Rule{
	{Kind: "scanner", Abusive: true, Match: func(p *Profile, _ bool) (string, bool) {
		return fmt.Sprintf("%d of %d requests answered 404 (paths that do not exist)", p.NotFound, p.Detailed),
			p.Detailed >= minBehaviour && 2*p.NotFound >= p.Detailed
	}},
	{Kind: "credential stuffer", Abusive: true, Match: func(p *Profile, _ bool) (string, bool) {
		return fmt.Sprintf("%d POSTs to a sign-in path, %d answered 401/403", p.LoginPosts, p.Denied),
			p.LoginPosts >= minBehaviour && 2*(p.Denied+p.TooMany) >= p.LoginPosts
	}},
	{Kind: "crawler", Match: func(p *Profile, _ bool) (string, bool) {
		name := BotName(p.Agent)
		return fmt.Sprintf("says it is %s (its User-Agent; not verified offline)", name), name != ""
	}},
	{Kind: "feed reader", Match: func(p *Profile, _ bool) (string, bool) {
		cv, mean, ok := p.Regularity()
		polls := p.Pages >= minBehaviour && 2*p.Feeds >= p.Pages
		if !polls {
			return "", false
		}
		if ok && cv <= regularCV {
			return fmt.Sprintf("polls a feed (%d of %d requests), every %s ± %.0f%%", p.Feeds, p.Requests, roundDuration(mean), 100*cv), true
		}
		return fmt.Sprintf("polls a feed (%d of %d requests)", p.Feeds, p.Requests), true
	}},
	{Kind: "poller", Match: func(p *Profile, _ bool) (string, bool) {
		cv, mean, ok := p.Regularity()
		return fmt.Sprintf("requests pages at a fixed interval, every %s ± %.0f%% (a monitor, an API client)", roundDuration(mean), 100*cv),
			ok && cv <= regularCV && p.Pages >= minBehaviour && 2*p.gapN >= p.Pages
	}},
	{Kind: "browser", Match: func(p *Profile, _ bool) (string, bool) {
		return fmt.Sprintf("page views pulling their assets (%.0f a page)", float64(p.Assets)/float64(max(p.Pages, 1))),
			p.Pages > 0 && p.Assets >= assetsPerPage*p.Pages
	}},
	{Kind: "scraper", Abusive: true, Match: func(p *Profile, heavy bool) (string, bool) {
		return fmt.Sprintf("fetches pages without their assets, up to %d a minute (%d pages, %d assets)", p.PagesPerMinute, p.Pages, p.Assets),
			p.Pages >= minBehaviour && 10*p.Assets < p.Pages && (heavy || p.PagesPerMinute >= scraperPagesPerMinute)
	}},
	{Kind: "unknown", Match: func(p *Profile, _ bool) (string, bool) {
		return "the log gives no path, status or User-Agent", p.Detailed == 0
	}},
	{Kind: "ordinary", Match: func(p *Profile, _ bool) (string, bool) { return "nothing stands out in its behaviour", true }},
}

// KindOf is the index in Rules of the first rule p matches, and why.
func KindOf(p *Profile, heavy bool) (int, string) {
	for i, r := range Rules {
		if why, ok := r.Match(p, heavy); ok {
			return i, why
		}
	}
	return len(Rules) - 1, ""
}

// botWords mark a crawler's User-Agent.
var botWords = []string{"bot", "crawler", "spider", "slurp", "crawl", "facebookexternalhit", "bingpreview", "ia_archiver"}

// BotName is the name a User-Agent gives its crawler ("Googlebot" from
// "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"),
// or "" when it does not say it is one.
func BotName(agent string) string {
	fields := strings.FieldsFunc(agent, func(r rune) bool { return r == ' ' || r == ';' || r == '(' || r == ')' || r == ',' })
	for _, f := range fields {
		if strings.HasPrefix(f, "+") || strings.Contains(f, "://") || strings.HasPrefix(strings.ToLower(f), "www.") {
			continue
		}
		low := strings.ToLower(f)
		for _, w := range botWords {
			if strings.Contains(low, w) {
				name, _, _ := strings.Cut(f, "/")
				return name
			}
		}
	}
	return ""
}

// roundDuration is seconds as a duration to the second: 15m0s, 1h0m5s.
func roundDuration(seconds float64) string {
	return format.Period(time.Duration(seconds * 1e9).Round(time.Second))
}

// minHeld is the least share of an abusive kind's requests a limit must
// refuse to hold it: one refusal in thousands does not.
const minHeld = 0.1

// held says refusing denied of a kind's total requests holds it (minHeld).
func held(denied, total int64) bool {
	return denied > 0 && float64(denied) >= minHeld*float64(total)
}
