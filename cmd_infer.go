package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"ratelab/infer"
	"ratelab/internal/printable"
)

const inferUsage = `
Usage: ratelab infer --log FILE [--refused 429,503] [--tolerance N] [--format text|json]
       ratelab infer --probe URL [--budget 300] [--max-rate 100] [--header 'Name: value']
                     [--allow-host HOST] [--max-idle 20s] [--refused 429,503] [--save FILE]
                     [--format text|json]

Finds the limiter behind an API from the outside: which family (token bucket
or GCRA, leaky queue, fixed window aligned to the clock or to the first
request, sliding log, sliding counter), its rate and burst with the intervals
every observation allows, its windows' alignment and whether refused requests
count, with the products' own arithmetic (nginx's clock of whole ms and its
burst, HAProxy's anchored counter that counts refusals). Every hypothesis is
replayed on what happened; the families that fit are ranked, the others ruled
out, and the request that would best tell the rest apart is named. The rate-limit
headers the server sent are checked against what happened, never trusted.

--log reads a client's log of what it sent and what came back, JSON Lines or
CSV: time (RFC 3339 or Unix seconds), status, optionally latency_ms (a queue's
holds) and, in JSON Lines, headers. --probe designs its own requests: a burst at
--max-rate until refused, single requests ever further apart until one passes,
a paced run, an idle spell and a second burst, then the requests that split the
families left; it stops when one family remains with its rate within 10%. It
never sends more than --budget requests nor faster than --max-rate, and probes
only loopback unless --allow-host names the host (redirects are not followed).`

type inferOptions struct {
	log, probe, allowHost, refused, format string
	save                                   string
	budget, tolerance                      int
	maxRate                                float64
	maxIdle                                time.Duration
	headers                                []string
}

func runInfer(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("infer", inferUsage, stderr)
	var o inferOptions
	fs.StringVar(&o.log, "log", "", "infer offline from a client's log `FILE` (JSON Lines or CSV: time, status, latency_ms)")
	fs.StringVar(&o.probe, "probe", "", "infer by probing the API at `URL` (loopback unless --allow-host)")
	fs.IntVar(&o.budget, "budget", infer.DefaultBudget, "--probe sends at most `N` requests")
	fs.Float64Var(&o.maxRate, "max-rate", infer.DefaultMaxRate, "--probe sends at most `R` requests a second")
	fs.DurationVar(&o.maxIdle, "max-idle", infer.DefaultMaxIdle, "--probe waits idle at most `DURATION` for the limit to refill")
	fs.StringVar(&o.allowHost, "allow-host", "", "let --probe reach `HOST`, which is not loopback (the budget and rate cap still hold)")
	fs.Func("header", "add the header `'Name: value'` to every probe (the key the API limits by); again for more", func(s string) error {
		name, _, ok := strings.Cut(s, ":")
		if !ok || strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t\r\n") || strings.ContainsAny(s, "\r\n") {
			return fmt.Errorf("want 'Name: value'")
		}
		o.headers = append(o.headers, s)
		return nil
	})
	fs.StringVar(&o.save, "save", "", "--probe: also write what was sent and what came back to `FILE`, a client log --log reads")
	fs.StringVar(&o.refused, "refused", "429,503", "the `STATUSES` that are refusals, comma-separated")
	fs.IntVar(&o.tolerance, "tolerance", 0, "--log: how many observations a hypothesis may get wrong, `N` (a log's clock may be coarse; --probe allows max(2, 1 in 40), so give that to read a probe's --save again)")
	fs.StringVar(&o.format, "format", "text", "the output's `FORMAT`: text or json")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := notEmpty(fs, "log", "probe", "allow-host", "refused"); err != nil {
		return err
	}
	switch {
	case (o.log == "") == (o.probe == ""):
		return usagef("infer: give --log FILE (offline) or --probe URL (active), one of them")
	case o.format != "text" && o.format != "json":
		return usagef("infer: --format is text or json, not %q", o.format)
	case o.budget < 10 || o.budget > 100_000:
		return usagef("infer: --budget must be 10 to 100000 requests (got %d)", o.budget)
	case !(o.maxRate >= 0.1 && o.maxRate <= 10_000):
		return usagef("infer: --max-rate must be 0.1 to 10000 requests a second (got %g)", o.maxRate)
	case o.maxIdle < 100*time.Millisecond || o.maxIdle > time.Hour:
		return usagef("infer: --max-idle must be 100ms to 1h (got %s)", o.maxIdle)
	case o.tolerance < 0:
		return usagef("infer: --tolerance must be >= 0 (got %d)", o.tolerance)
	case o.log != "" && (o.allowHost != "" || len(o.headers) > 0 || o.save != ""):
		return usagef("infer: --allow-host, --header and --save are for --probe")
	}
	refused, err := parseStatuses(o.refused)
	if err != nil {
		return usagef("infer: --refused: %v", err)
	}
	ctx, stop := interrupts()
	defer stop()
	var rep *infer.Report
	var probed *infer.Probed
	if o.log != "" {
		f, err := os.Open(o.log)
		if err != nil {
			return usagef("infer: --log: %v", err)
		}
		obs, err := infer.ReadLog(o.log, f, refused)
		f.Close()
		if err != nil {
			return usagef("infer: --log %s", printable.String(err.Error()))
		}
		if len(obs) == 0 {
			return usagef("infer: --log %s holds no request", o.log)
		}
		rep = infer.Analyze(obs, o.tolerance, infer.ClaimsFrom(infer.Headers(obs)))
	} else {
		client, err := probeClient(o.probe, o.allowHost)
		if err != nil {
			return err
		}
		var save *output
		if o.save != "" {
			if save, err = openOutput("--save", o.save, stdout); err != nil {
				return err
			}
			defer save.Abort()
		}
		header := http.Header{}
		for _, h := range o.headers {
			name, value, _ := strings.Cut(h, ":")
			header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
		}
		startWork()
		var log io.Writer
		if o.format == "text" {
			log = stderr
		}
		probed, err = infer.Probe(ctx, infer.ProbeOptions{URL: o.probe, Budget: o.budget, MaxRate: o.maxRate, Header: header,
			Refused: refused, Client: client, MaxIdle: o.maxIdle, Log: log})
		if probed == nil {
			return fmt.Errorf("infer: --probe %s: %v", o.probe, err)
		}
		if err != nil && context.Cause(ctx) != nil {
			fmt.Fprintf(stderr, "ratelab infer: %v; the report is on what was observed\n", context.Cause(ctx))
		} else if err != nil {
			fmt.Fprintf(stderr, "ratelab infer: %v\n", err)
		}
		if probed.Failed > 0 {
			fmt.Fprintf(stderr, "ratelab infer: %d of %d requests got no answer (the first: %v); they are left out\n", probed.Failed, probed.Sent, probed.FirstError)
		}
		rep = probed.Report
		if save != nil {
			// the server's header values, escaped as JSON allows, so that
			// printing the file is safe
			if err := infer.WriteLog(printable.JSONWriter(save), probed.Observations); err != nil {
				return err
			}
			if err := save.Commit(); err != nil {
				return err
			}
		}
	}
	interrupted := context.Cause(ctx)
	if o.format == "json" {
		enc := json.NewEncoder(printable.JSONWriter(stdout))
		enc.SetIndent("", "  ")
		if err := enc.Encode(inferJSON(rep, probed)); err != nil {
			return err
		}
		return interrupted // a report on what was seen, and exit 1
	}
	if probed != nil {
		fmt.Fprintf(stdout, "ratelab infer --probe %s: %d requests sent of a budget of %d\n", printable.String(o.probe), probed.Sent, o.budget)
	} else {
		fmt.Fprintf(stdout, "ratelab infer --log %s\n", printable.String(o.log))
	}
	if err := rep.WriteText(stdout); err != nil {
		return err
	}
	return interrupted
}

// parseStatuses reads --refused.
func parseStatuses(s string) (func(int) bool, error) {
	var codes []int
	for _, w := range strings.Split(s, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil || c < 100 || c > 599 {
			return nil, fmt.Errorf("%q is not an HTTP status (100 to 599)", strings.TrimSpace(w))
		}
		codes = append(codes, c)
	}
	return func(code int) bool { return slices.Contains(codes, code) }, nil
}

// probeClient is the client --probe sends with: to loopback only (checked on
// every connection, after the name is resolved) unless allowHost names the
// URL's host; redirects are not followed.
func probeClient(raw, allowHost string) (*http.Client, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, usagef("infer: --probe %q: give an http:// or https:// URL", raw)
	}
	host := u.Hostname()
	allowed := allowHost != "" && strings.EqualFold(allowHost, host)
	if allowHost != "" && !allowed {
		return nil, usagef("infer: --allow-host %s does not name --probe's host %s", allowHost, host)
	}
	if ip := net.ParseIP(host); !allowed && ip != nil && !ip.IsLoopback() {
		return nil, usagef("infer: --probe %s is not loopback; add --allow-host %s to probe it (within --budget and --max-rate)", raw, host)
	}
	if !allowed && net.ParseIP(host) == nil && !strings.EqualFold(host, "localhost") {
		return nil, usagef("infer: --probe %s names the host %s; add --allow-host %s to probe it (within --budget and --max-rate)", raw, host, host)
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	if !allowed {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			h, _, err := net.SplitHostPort(address)
			if ip := net.ParseIP(h); err != nil || ip == nil || !ip.IsLoopback() {
				return fmt.Errorf("%s is not loopback; --allow-host names a host to probe", address)
			}
			return nil
		}
	}
	// a connection a request: a request on a reused connection the server
	// closes would be sent again by the transport, unseen by the budget and the cap
	tr := &http.Transport{DialContext: dialer.DialContext, DisableKeepAlives: true, Proxy: nil}
	return &http.Client{Transport: tr, Timeout: time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, nil
}
