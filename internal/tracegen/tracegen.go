// Package tracegen writes synthetic access logs in the Combined Log Format for
// tests and benchmarks: ordinary users who load a page and its assets now and
// then (all the time, or in visits), a few abusive clients who send steadily at a
// high rate, crawlers that walk the site at a moderate one, feed readers that
// poll a feed all day (heavy over hours, never over seconds) and scrapers that
// fire short bursts (heavy over seconds). Lines are written when each request completes
// (as Apache and nginx do), stamped with when it arrived, so the file is out of
// order within the longest request's duration. The same Spec writes the same
// bytes.
package tracegen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"
)

// Spec is what to generate.
type Spec struct {
	Start    time.Time     // the first second of the log
	Duration time.Duration // how much time it covers
	Seed     uint64

	// Users load pages at UserPages per second each on average (exponential
	// gaps), each page being one document and up to eight assets within the
	// following second.
	Users     int
	UserPages float64
	// Abusers send AbuserRate requests per second each, Poisson, all the time.
	Abusers    int
	AbuserRate float64
	// Crawlers fetch CrawlerRate pages per second each, evenly.
	Crawlers    int
	CrawlerRate float64
	// Visits, when above 0, makes users come in visits instead of all the time:
	// Visits visits an hour each on average (exponential gaps), each of
	// VisitPages pages on average (geometric), PageGap apart on average
	// (exponential), each page with its assets as above.
	Visits     float64
	VisitPages float64
	PageGap    time.Duration
	// FeedReaders poll /feed.xml every FeedEvery each (up to a tenth early or
	// late), all the time, from a random start.
	FeedReaders int
	FeedEvery   time.Duration
	// Scrapers fire bursts of ScraperBurst at ScraperRate requests a second
	// each, evenly spaced, one burst every ScraperEvery, the first at a random
	// time within it.
	Scrapers     int
	ScraperRate  float64
	ScraperBurst time.Duration
	ScraperEvery time.Duration
	// Slowest is the longest a request takes: lines are written up to this long
	// after the time they carry.
	Slowest time.Duration

	// PageAssets, when its upper bound is above 0, is how many assets each of a
	// user's pages pulls, uniformly from PageAssets[0] to PageAssets[1], within
	// three seconds of the page, a third of them answered 304 (a browser's page
	// view of a slide deck or an article); zero: up to eight within a second.
	PageAssets [2]int
	// CrawlerAgent and FeedAgent are the crawlers' and the feed readers'
	// User-Agent; empty: ExampleBot/2.1 and ExampleFeedReader/3.0.
	CrawlerAgent, FeedAgent string
	// Stuffers try passwords: POST /login at StufferRate a second each,
	// Poisson, all the time, answered 401.
	Stuffers    int
	StufferRate float64
	// Scanners probe paths that do not exist (/.env, /wp-login.php, …) at
	// ScannerRate a second each for ScannerBurst every ScannerEvery, the first at
	// a random time within it, answered 404.
	Scanners     int
	ScannerRate  float64
	ScannerBurst time.Duration
	ScannerEvery time.Duration
}

// Clients are the addresses of each kind of client in a generated log.
type Clients struct {
	Users, Abusers, Crawlers, FeedReaders, Scrapers, Stuffers, Scanners []string
}

// Addresses returns the addresses Spec s gives its clients.
func (s Spec) Addresses() Clients {
	var c Clients
	for i := range s.Users {
		c.Users = append(c.Users, fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255))
	}
	for i := range s.Abusers {
		c.Abusers = append(c.Abusers, fmt.Sprintf("203.0.113.%d", i+1))
	}
	for i := range s.Crawlers {
		c.Crawlers = append(c.Crawlers, fmt.Sprintf("66.249.66.%d", i+1))
	}
	for i := range s.FeedReaders {
		c.FeedReaders = append(c.FeedReaders, fmt.Sprintf("198.51.100.%d", i+1))
	}
	for i := range s.Scrapers {
		c.Scrapers = append(c.Scrapers, fmt.Sprintf("192.0.2.%d", i+1))
	}
	for i := range s.Stuffers {
		c.Stuffers = append(c.Stuffers, fmt.Sprintf("198.18.0.%d", i+1))
	}
	for i := range s.Scanners {
		c.Scanners = append(c.Scanners, fmt.Sprintf("100.64.0.%d", i+1))
	}
	return c
}

// request is one generated request: when it arrived and completed (µs from the
// start), who sent it, and which path.
type request struct {
	at, done int64
	client   int32
	path     int32
}

// feedPath marks a feed reader's request; loginPath a stuffer's; from probePath
// on, a scanner's probe of probes[path-probePath]; from pageAsset on, a page
// view's asset pageAssets[path-pageAsset].
const (
	feedPath  = -1 << 30
	loginPath = -1<<30 + 1
	probePath = 1 << 20
	pageAsset = 1 << 21
)

// probes are paths scanners try that the site does not have.
var probes = []string{"/.env", "/wp-login.php", "/wp-admin/setup-config.php", "/phpmyadmin/index.php", "/.git/config", "/admin.php", "/config.json", "/backup.zip", "/server-status", "/xmlrpc.php", "/vendor/phpunit/phpunit/src/Util/PHP/eval-stdin.php", "/cgi-bin/luci", "/actuator/health", "/.aws/credentials", "/api/.env", "/old/wp-admin/"}

var paths = []string{"/", "/index.html", "/products", "/products/42", "/cart", "/search?q=rate+limit", "/api/v1/items", "/login", "/about", "/blog/2026/rate-limits"}
var assets = []string{"/static/app.js", "/static/app.css", "/static/logo.png", "/static/font.woff2", "/favicon.ico", "/static/hero.jpg", "/static/vendor.js", "/static/icons.svg"}

// pageAssets are what a page view pulls with PageAssets: a deck's slides and
// its scripts, styles and fonts.
var pageAssets = func() []string {
	var a []string
	for i := range 60 {
		switch i % 6 {
		case 0:
			a = append(a, fmt.Sprintf("/talks/rate-limits/slide-%02d.png", i))
		case 1:
			a = append(a, fmt.Sprintf("/static/js/chunk-%02d.js", i))
		case 2:
			a = append(a, fmt.Sprintf("/static/css/part-%02d.css", i))
		case 3:
			a = append(a, fmt.Sprintf("/static/fonts/face-%02d.woff2", i))
		case 4:
			a = append(a, fmt.Sprintf("/talks/rate-limits/figure-%02d.svg", i))
		default:
			a = append(a, fmt.Sprintf("/static/img/photo-%02d.jpg", i))
		}
	}
	return a
}()

// Write writes the log for s to w and returns how many lines it wrote.
func Write(w io.Writer, s Spec) (int, error) {
	reqs := generate(s)
	addr := s.Addresses()
	var names []string
	for _, kind := range [][]string{addr.Users, addr.Abusers, addr.Crawlers, addr.FeedReaders, addr.Scrapers, addr.Stuffers, addr.Scanners} {
		names = append(names, kind...)
	}
	feeds, scrapers := s.Users+s.Abusers+s.Crawlers, s.Users+s.Abusers+s.Crawlers+s.FeedReaders
	stuffers := scrapers + s.Scrapers
	scanners := stuffers + s.Stuffers
	crawlerAgent, feedAgent := s.CrawlerAgent, s.FeedAgent
	if crawlerAgent == "" {
		crawlerAgent = "ExampleBot/2.1 (+https://example.com/bot)"
	}
	if feedAgent == "" {
		feedAgent = "ExampleFeedReader/3.0"
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var line []byte
	start := s.Start.Unix()
	lastSec, stamp := int64(-1), ""
	for _, r := range reqs {
		sec := start + r.at/1e6
		if sec != lastSec {
			lastSec, stamp = sec, time.Unix(sec, 0).In(s.Start.Location()).Format("02/Jan/2006:15:04:05 -0700")
		}
		c := int(r.client)
		agent := "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0"
		user, method, status := "-", "GET", 200
		switch {
		case c >= scanners:
			agent, status = "Mozilla/5.0 zgrab/0.x", 404
		case c >= stuffers:
			agent, method, status = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36", "POST", 401
		case c >= scrapers:
			agent = "curl/8.5.0"
		case c >= feeds:
			agent = feedAgent
		case c >= s.Users+s.Abusers:
			agent = crawlerAgent
		case c >= s.Users:
			agent = "python-requests/2.32"
		case c%7 == 0:
			user = fmt.Sprintf("user%d", c)
		}
		var path string
		switch {
		case r.path == feedPath:
			path = "/feed.xml"
		case r.path == loginPath:
			path = "/login"
		case r.path < 0:
			path = fmt.Sprintf("/products/%d", -r.path)
		case r.path >= pageAsset:
			path = pageAssets[int(r.path)-pageAsset]
			if r.done%3 == 0 { // a third already cached
				status = 304
			}
		case r.path >= probePath:
			path = probes[int(r.path)-probePath]
		case int(r.path) < len(paths):
			path = paths[r.path]
		default:
			path = assets[int(r.path)-len(paths)]
		}
		line = fmt.Appendf(line[:0], "%s - %s [%s] \"%s %s HTTP/1.1\" %d %d \"-\" \"%s\"\n", names[c], user, stamp, method, path, status, 512+int(r.path&7)*1024, agent)
		if _, err := bw.Write(line); err != nil {
			return 0, err
		}
	}
	return len(reqs), bw.Flush()
}

// generate makes every request of s, sorted by completion (the order lines are
// written in).
func generate(s Spec) []request {
	rng := rand.New(rand.NewPCG(s.Seed, 0x7261746c6162))
	end := int64(s.Duration / time.Microsecond)
	slowest := max(int64(s.Slowest/time.Microsecond), 1)
	var reqs []request
	add := func(at int64, client, path int) {
		if at < end {
			reqs = append(reqs, request{at: at, done: at + rng.Int64N(slowest), client: int32(client), path: int32(path)})
		}
	}
	page := func(t int64, u int) {
		add(t, u, rng.IntN(len(paths)))
		if hi := s.PageAssets[1]; hi > 0 {
			lo := min(max(s.PageAssets[0], 0), hi)
			for a := range min(lo+rng.IntN(hi-lo+1), len(pageAssets)) {
				add(t+rng.Int64N(3e6), u, pageAsset+a)
			}
			return
		}
		for a := range rng.IntN(len(assets) + 1) {
			add(t+rng.Int64N(1e6), u, len(paths)+a)
		}
	}
	for u := range s.Users {
		if s.Visits > 0 {
			// visits: exponential gaps of 1/Visits hours; pages geometric, PageGap apart
			for t := int64(rng.ExpFloat64() / s.Visits * 3600e6); t < end; t += int64(rng.ExpFloat64() / s.Visits * 3600e6) {
				at := t
				for {
					page(at, u)
					if rng.Float64()*max(s.VisitPages, 1) < 1 {
						break
					}
					at += int64(rng.ExpFloat64() * float64(s.PageGap/time.Microsecond))
				}
			}
			continue
		}
		if s.UserPages <= 0 {
			break
		}
		for t := int64(rng.ExpFloat64() / s.UserPages * 1e6); t < end; t += int64(rng.ExpFloat64() / s.UserPages * 1e6) {
			page(t, u)
		}
	}
	for a := range s.Abusers {
		for t := int64(rng.ExpFloat64() / s.AbuserRate * 1e6); t < end; t += int64(rng.ExpFloat64() / s.AbuserRate * 1e6) {
			add(t, s.Users+a, rng.IntN(len(paths)))
		}
	}
	for c := range s.Crawlers {
		gap := int64(1e6 / s.CrawlerRate)
		for t, n := rng.Int64N(gap), 1; t < end; t, n = t+gap, n+1 {
			add(t, s.Users+s.Abusers+c, -n)
		}
	}
	for f := range s.FeedReaders {
		every := int64(s.FeedEvery / time.Microsecond)
		for t := rng.Int64N(every); t < end; t += every - every/10 + rng.Int64N(every/5+1) {
			add(t, s.Users+s.Abusers+s.Crawlers+f, feedPath)
		}
	}
	for sc := range s.Scrapers {
		every, burst := int64(s.ScraperEvery/time.Microsecond), int64(s.ScraperBurst/time.Microsecond)
		gap := int64(1e6 / s.ScraperRate)
		for t := rng.Int64N(every); t < end; t += every {
			for at := t; at < t+burst; at += gap {
				add(at, s.Users+s.Abusers+s.Crawlers+s.FeedReaders+sc, rng.IntN(len(paths)))
			}
		}
	}
	stuffers := s.Users + s.Abusers + s.Crawlers + s.FeedReaders + s.Scrapers
	for st := range s.Stuffers {
		for t := int64(rng.ExpFloat64() / s.StufferRate * 1e6); t < end; t += int64(rng.ExpFloat64() / s.StufferRate * 1e6) {
			add(t, stuffers+st, loginPath)
		}
	}
	for sc := range s.Scanners {
		every, burst := int64(s.ScannerEvery/time.Microsecond), int64(s.ScannerBurst/time.Microsecond)
		gap := int64(1e6 / s.ScannerRate)
		for t := rng.Int64N(max(every, 1)); t < end; t += every {
			for at := t; at < t+burst; at += gap {
				add(at, stuffers+s.Stuffers+sc, probePath+rng.IntN(len(probes)))
			}
		}
	}
	slices.SortStableFunc(reqs, func(a, b request) int {
		if a.done != b.done {
			return int(min(max(a.done-b.done, -1), 1))
		}
		return int(min(max(a.at-b.at, -1), 1))
	})
	return reqs
}
