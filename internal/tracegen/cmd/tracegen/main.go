// Command tracegen writes a synthetic Combined Log (see package tracegen) to
// standard output, for trying ratelab tune and trace replay on a log of any size:
//
//	go run ./internal/tracegen/cmd/tracegen --duration 168h --users 500 > week.log
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"ratelab/internal/tracegen"
)

func main() {
	s := tracegen.Spec{Start: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)}
	flag.DurationVar(&s.Duration, "duration", time.Hour, "time the log covers")
	flag.Uint64Var(&s.Seed, "seed", 1, "random seed")
	flag.IntVar(&s.Users, "users", 1000, "ordinary users")
	flag.Float64Var(&s.UserPages, "user-pages", 1.0/40, "pages a user loads per second, on average (each with up to 8 assets)")
	flag.IntVar(&s.Abusers, "abusers", 3, "abusive clients")
	flag.Float64Var(&s.AbuserRate, "abuser-rate", 20, "requests per second of each abusive client")
	flag.IntVar(&s.Crawlers, "crawlers", 1, "crawlers")
	flag.Float64Var(&s.CrawlerRate, "crawler-rate", 5, "pages per second of each crawler")
	flag.Float64Var(&s.Visits, "visits", 0, "when above 0, users come in visits: this many an hour each, on average")
	flag.Float64Var(&s.VisitPages, "visit-pages", 6, "pages per visit, on average")
	flag.DurationVar(&s.PageGap, "page-gap", 20*time.Second, "time between a visit's pages, on average")
	flag.IntVar(&s.FeedReaders, "feed-readers", 0, "feed readers, polling /feed.xml all the time")
	flag.DurationVar(&s.FeedEvery, "feed-every", time.Minute, "how often each feed reader polls")
	flag.IntVar(&s.Scrapers, "scrapers", 0, "scrapers, firing short bursts")
	flag.Float64Var(&s.ScraperRate, "scraper-rate", 50, "requests per second within a scraper's burst")
	flag.DurationVar(&s.ScraperBurst, "scraper-burst", 5*time.Second, "how long a scraper's burst lasts")
	flag.DurationVar(&s.ScraperEvery, "scraper-every", time.Hour, "time between a scraper's bursts")
	flag.DurationVar(&s.Slowest, "slowest", 3*time.Second, "the longest request: how far out of order lines are written")
	flag.IntVar(&s.PageAssets[0], "page-assets-min", 0, "with -page-assets-max: the fewest assets a page view pulls (within 3 s)")
	flag.IntVar(&s.PageAssets[1], "page-assets-max", 0, "the most assets a page view pulls; 0: up to eight within a second")
	flag.StringVar(&s.CrawlerAgent, "crawler-agent", "", "the crawlers' User-Agent (default ExampleBot/2.1)")
	flag.StringVar(&s.FeedAgent, "feed-agent", "", "the feed readers' User-Agent (default ExampleFeedReader/3.0)")
	flag.IntVar(&s.Stuffers, "stuffers", 0, "credential stuffers: POST /login, answered 401, all the time")
	flag.Float64Var(&s.StufferRate, "stuffer-rate", 0.05, "tries per second of each stuffer")
	flag.IntVar(&s.Scanners, "scanners", 0, "scanners probing paths that do not exist, answered 404")
	flag.Float64Var(&s.ScannerRate, "scanner-rate", 3, "probes per second within a scanner's burst")
	flag.DurationVar(&s.ScannerBurst, "scanner-burst", 40*time.Second, "how long a scanner's burst lasts")
	flag.DurationVar(&s.ScannerEvery, "scanner-every", 8*time.Hour, "time between a scanner's bursts")
	flag.Parse()
	n, err := tracegen.Write(os.Stdout, s)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracegen:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "tracegen: %d lines\n", n)
}
