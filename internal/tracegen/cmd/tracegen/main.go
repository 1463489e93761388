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
	flag.DurationVar(&s.Slowest, "slowest", 3*time.Second, "the longest request: how far out of order lines are written")
	flag.Parse()
	n, err := tracegen.Write(os.Stdout, s)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracegen:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "tracegen: %d lines\n", n)
}
