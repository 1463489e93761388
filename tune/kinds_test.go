package tune

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/traces"
)

// profileOf builds a profile from requests, a person's irregular one to
// five minutes apart.
func profileOf(reqs ...traces.Detail) *Profile {
	p := &Profile{}
	var at int64
	for i, d := range reqs {
		at += int64(1+(i*7)%5) * int64(time.Minute/time.Microsecond)
		p.add(at, &d)
	}
	return p
}

// times repeats d n times.
func times(n int, d ...traces.Detail) []traces.Detail {
	var out []traces.Detail
	for range n {
		out = append(out, d...)
	}
	return out
}

// Each rule on a profile made to be its kind, and on the near misses that
// are not: the rules are data, and this is their table of cases.
func TestKindRules(t *testing.T) {
	page := traces.Detail{Method: "GET", Path: "/post", Status: 200, Agent: "Firefox"}
	asset := traces.Detail{Method: "GET", Path: "/s/a.css", Status: 200, Agent: "Firefox"}
	fast := &Profile{} // 40 pages in 16 seconds, no asset
	for i := range 40 {
		fast.add(int64(i)*400e3, &page)
	}
	if i, why := KindOf(fast, false); Rules[i].Kind != "scraper" {
		t.Errorf("40 pages in 400 ms steps without assets: %s (%s), want scraper", Rules[i].Kind, why)
	}
	steady := &Profile{} // a monitor: a page every second, all day
	for i := range 600 {
		steady.add(int64(i)*1e6, &page)
	}
	if i, why := KindOf(steady, true); Rules[i].Kind != "poller" {
		t.Errorf("a page every second: %s (%s), want poller", Rules[i].Kind, why)
	}
	for _, c := range []struct {
		name  string
		reqs  []traces.Detail
		heavy bool
		want  string
	}{
		{"404 scan", times(12, traces.Detail{Method: "GET", Path: "/.env", Status: 404, Agent: "zgrab"}), false, "scanner"},
		{"a few 404s", append(times(3, traces.Detail{Path: "/gone", Status: 404}), times(10, page)...), false, "ordinary"},
		{"login tries", times(12, traces.Detail{Method: "POST", Path: "/wp-login.php", Status: 401, Agent: "Chrome"}), false, "credential stuffer"},
		{"logins that work", times(12, traces.Detail{Method: "POST", Path: "/login", Status: 302, Agent: "Chrome"}), false, "ordinary"},
		{"Googlebot", times(3, traces.Detail{Path: "/p", Status: 200, Agent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"}), true, "crawler"},
		{"a scanner that says it is a bot", times(12, traces.Detail{Path: "/x.php", Status: 404, Agent: "EvilBot/1"}), false, "scanner"},
		{"feed poller", times(12, traces.Detail{Path: "/feed.xml", Status: 200, Agent: "Feedly"}), false, "feed reader"},
		{"page views", times(4, append([]traces.Detail{page}, times(5, asset)...)...), true, "browser"},
		{"pages without assets, heavy", times(20, page), true, "scraper"},
		{"pages without assets, light", times(20, page), false, "ordinary"},
		{"no fields", times(20, traces.Detail{}), true, "unknown"},
	} {
		i, why := KindOf(profileOf(c.reqs...), c.heavy)
		if Rules[i].Kind != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, Rules[i].Kind, why, c.want)
		}
	}
	if len(Rules) > maxKinds {
		t.Errorf("%d rules; a tally counts %d kinds", len(Rules), maxKinds)
	}
	if Rules[len(Rules)-1].Abusive {
		t.Error("the last rule, which every key matches, is abusive")
	}
}

// A feed reader's gaps are regular; a person's are not.
func TestRegularity(t *testing.T) {
	p := &Profile{}
	for i := range 20 {
		at := int64(i)*15*60e6 + int64(i%3)*30e6 // every 15 minutes, ±30 s
		p.add(at, &traces.Detail{Path: "/feed", Status: 200})
	}
	cv, mean, ok := p.Regularity()
	if !ok || cv > 0.1 || mean < 14*60 || mean > 16*60 {
		t.Errorf("a 15-minute poller: cv %g, mean %gs, ok %v", cv, mean, ok)
	}
	if _, _, ok := profileOf(times(3, traces.Detail{Path: "/feed"})...).Regularity(); ok {
		t.Error("regularity judged on 2 gaps")
	}
}

func TestBotName(t *testing.T) {
	for agent, want := range map[string]string{
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)":      "Googlebot",
		"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)":       "bingbot",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0)": "ClaudeBot",
		"Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0":                                 "",
		"Feedly/1.0 (+http://www.feedly.com/fetcher.html; 3 subscribers)":               "",
		"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)":     "facebookexternalhit",
	} {
		if got := BotName(agent); got != want {
			t.Errorf("BotName(%q) = %q, want %q", agent, got, want)
		}
	}
	_ = fmt.Sprint()
}

// A log in which nobody behaves abusively gets no abuse limit, and says why
// and what to ask instead.
func TestAbuseWithoutAbusers(t *testing.T) {
	var reqs []Request
	for i := range 200 {
		reqs = append(reqs, Request{At: int64(i) * 1e6, Key: uint32(i % 4), Cost: 1})
	}
	tr := FromRequests("quiet", []string{"a", "b", "c", "d"}, reqs)
	tr.Profiles = make([]Profile, 4)
	for k := range tr.Profiles {
		for i := range 50 {
			tr.Profiles[k].add(int64(i)*120e6, &traces.Detail{Method: "GET", Path: "/", Status: 200, Agent: "Firefox"})
		}
	}
	rep, err := Run(context.Background(), tr, Options{Points: 3, Goal: Goal{Name: GoalAbuse}, Periods: []time.Duration{time.Second, time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Best >= 0 || !strings.Contains(rep.Why, "nothing for --goal abuse to hold") {
		t.Errorf("best %d, why %q", rep.Best, rep.Why)
	}
}

// A capacity is never rounded up past itself: the limit is the rate's whole
// number of requests in the shortest period within 1% of it.
func TestPerSecondPolicy(t *testing.T) {
	for _, c := range []struct {
		rate float64
		want string
	}{{200, "sliding-log 200/s"}, {1.5, "sliding-log 90/min"}, {0.5, "sliding-log 30/min"}, {1.0 / 3600, "sliding-log 1/h"}, {2e-5, "sliding-log 1/day"}} {
		p, err := perSecondPolicy(algorithms.SlidingLogName, c.rate)
		if err != nil || p.String() != c.want || rateOf(p) > c.rate*(1+1e-9) {
			t.Errorf("%g/s: %s, %v; want %s", c.rate, p, err, c.want)
		}
	}
	if _, err := perSecondPolicy(algorithms.SlidingLogName, 1e-6); err == nil {
		t.Error("less than one a day: no error")
	}
}

// The busiest second of a sparse log spanning decades is found without a
// count per second of its span.
func TestBusiestSecondSparse(t *testing.T) {
	const year = 365 * 24 * 3600 * int64(1e6)
	reqs := []Request{{At: 0, Key: 0, Cost: 1}, {At: 50 * year, Key: 0, Cost: 1}, {At: 50*year + 10, Key: 1, Cost: 1}, {At: 50*year + 2e6, Key: 1, Cost: 1}}
	tr := FromRequests("sparse", []string{"a", "b"}, reqs)
	if n, at := tr.busiestSecond(); n != 2 || at != 50*year {
		t.Errorf("busiest second %d at %d µs; want 2 at %d", n, at, 50*year)
	}
}
