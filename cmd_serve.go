package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/outpath"
	"ratelab/internal/printable"
	"ratelab/serve"
	"ratelab/ui"

	tea "charm.land/bubbletea/v2"
)

const serveUsage = `
Usage: ratelab serve (--scenario NAME [--file F] | --config FILE) [--lanes a,b]
                     [--listen 127.0.0.1:8080] [--public] [--key ip|user|path|header:NAME|…]
                     [--upstream URL] [--csv PATH] [--max-keys N] [--tui]

Serves limiters over HTTP on the wall clock, as a test double for the clients
of a rate-limited API: a scenario's lanes, or every context that limits in a
product's configuration (nginx.conf, haproxy.cfg, Envoy, Kong, Traefik…). Each
request is keyed as the lane's product keys it (its client address, a header,
the path; --key for a scenario's lanes), decided by the same limiter ratelab
replays, and answered as the product answers: 200 (or, with --upstream, the
upstream service's response), or the product's refusal with its status and
rate-limit headers (nginx's 503 or limit_req_status, Envoy's x-ratelimit-*,
Kong's, the IETF draft's RateLimit, Retry-After), or held as the product holds
it (nginx's burst without nodelay). One lane takes every path; with several,
the first segment of the path names the lane, URL-escaped (/ lists them with
their paths), and --lanes picks some by name (a configuration's contexts: any
unique part of "server 8080 location /login"). --csv logs every decision as the
request CSV's columns and the status. It listens on loopback unless --public;
each lane holds at most --max-keys keys in use (a new one past them is answered
503 once the lane has let go of the keys its limiters hold no more);
SIGINT or SIGTERM stops it gracefully (exit 0), the log written.`

type serveOptions struct {
	run                   runOptions
	trace                 traceOptions
	listen, key, upstream string
	csv                   string
	maxKeys               int
	public, tui           bool
}

func runServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", serveUsage, stderr)
	var o serveOptions
	o.run.scenarioFlags(fs, "serve the lanes of the scenario `NAME` (see ratelab list)")
	setUsage(fs, "lanes", "serve only these `LANES`, comma-separated: a scenario's by lane name or algorithm, a configuration's by any unique part of a context's name")
	setUsage(fs, "redis", "not for serve: its limiters live in memory (run and tui take a Redis `URL`)")
	o.trace.configFlags(fs)
	setUsage(fs, "config", "serve a lane per context that limits in the product configuration `FILE`")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8080", "the `ADDRESS` to listen on, host:port (port 0: a free one, printed)")
	fs.BoolVar(&o.public, "public", false, "allow --listen on an address other than loopback")
	fs.StringVar(&o.key, "key", "", "how a request is keyed, `SPEC`: ip, user, path, method, header:NAME or shared, several joined by +; default the product's key, else ip")
	fs.StringVar(&o.upstream, "upstream", "", "pass each allowed request to the service at `URL` (a reverse proxy)")
	fs.StringVar(&o.csv, "csv", "", "log every decision as CSV to `PATH` (- for standard output)")
	fs.IntVar(&o.maxKeys, "max-keys", serve.MaxKeys, "the most keys a lane holds, `N`: a new key past it is answered 503")
	fs.BoolVar(&o.tui, "tui", false, "show the served lanes live in the terminal (q stops the server)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := notEmpty(fs, "scenario", "file", "lanes", "config", "listen", "key", "upstream", "csv"); err != nil {
		return err
	}
	switch {
	case o.run.scenario == "" && o.trace.config == "":
		return usagef("serve: give --scenario NAME (its lanes) or --config FILE (a product's configuration)")
	case o.run.scenario != "" && o.trace.config != "":
		return usagef("serve: give --scenario or --config, not both")
	case o.trace.config != "" && o.run.file != "":
		return usagef("serve: --file holds scenarios; --config is a product's configuration: give one")
	case o.run.redis != "":
		return usagef("serve: the served limiters live in memory; --redis is for run and tui")
	case o.maxKeys < 1:
		return usagef("serve: --max-keys must be at least 1 (got %d)", o.maxKeys)
	case o.tui && o.csv == "-":
		return usagef("serve: --tui draws on the terminal; send --csv to a file")
	}
	if err := checkListen(o.listen, o.public); err != nil {
		return err
	}
	var keyOverride *serve.KeyOf
	if o.key != "" {
		k, err := serve.ParseKey(o.key)
		if err != nil {
			return usagef("serve: --key: %v", err)
		}
		keyOverride = &k
	}
	opts := serve.Options{MaxKeys: o.maxKeys}
	if o.upstream != "" {
		u, err := url.Parse(o.upstream)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usagef("serve: --upstream %q: give an http:// or https:// URL with a host", o.upstream)
		}
		opts.Upstream = u
	}
	var err error
	var notes []string
	if o.trace.config != "" {
		opts.Lanes, notes, err = o.configLanes(keyOverride)
	} else {
		opts.Lanes, notes, err = o.scenarioLanes(keyOverride)
	}
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(stderr, printable.String(n))
	}
	if err := checkHorizon(opts.Lanes); err != nil {
		return err
	}
	// the log never lands on an input: the configuration or the scenario file
	// (files they include are not checked)
	inputs := []outpath.Path{}
	for _, f := range []struct{ what, path string }{{"the configuration (--config)", o.trace.config}, {"the scenario file (--file)", o.run.file}} {
		if f.path != "" {
			inputs = append(inputs, outpath.Input(f.what, f.path))
		}
	}
	if err := distinct(append(inputs, givenPaths(outpath.File("--csv", o.csv))...)); err != nil {
		return err
	}
	var out *output
	if o.csv != "" {
		if out, err = openOutput("csv", o.csv, stdout); err != nil {
			return err
		}
		defer out.Abort()
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("serve: --listen %s: %v", o.listen, err)
	}
	// a name (localhost) is judged by the address it resolved to
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !o.public && !tcp.IP.IsLoopback() {
		ln.Close()
		return usagef("serve: --listen %s resolved to %s, which is not loopback; add --public if that is what you want", o.listen, tcp.IP)
	}
	var logMu sync.Mutex // the log is written under the server's lock; Flush from here
	var log *serve.Log
	var view *serveView
	if out != nil {
		log = serve.NewLog(out, opts.Lanes)
	}
	if o.tui {
		view = newServeView(opts.Lanes)
	}
	var decided atomic.Int64
	opts.OnDecision = func(a serve.Arrival) {
		decided.Add(1)
		if log != nil {
			logMu.Lock()
			log.Write(a)
			logMu.Unlock()
		}
		if view != nil {
			view.add(a)
		}
	}
	srv, err := serve.New(opts)
	if err != nil {
		ln.Close()
		return usagef("serve: %v", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	ctx, stop := interrupts()
	defer stop()
	startWork() // a signal now stops the server, which writes its log
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	if !o.tui {
		fmt.Fprintf(stderr, "ratelab serve: listening on http://%s (%s; SIGINT or SIGTERM stops it)\n", ln.Addr(), lanesWord(len(opts.Lanes)))
		for _, l := range opts.Lanes {
			fmt.Fprintf(stderr, "  %s\n", printable.String(describeLane(l, len(opts.Lanes) > 1)))
		}
	}
	var runErr error
	if o.tui {
		runErr = view.run(ctx, ln.Addr().String())
	} else {
		select {
		case <-ctx.Done():
		case runErr = <-served:
		}
	}
	// requests in flight (one nginx holds, a slow upstream) get two seconds,
	// well within the grace a signal leaves for the clean-up; then they are cut
	shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil {
		hs.Close()
	}
	if runErr != nil && !errors.Is(runErr, http.ErrServerClosed) {
		return runErr
	}
	if log != nil {
		logMu.Lock()
		err := log.Flush()
		logMu.Unlock()
		if err != nil {
			return err
		}
		if err := out.Commit(); err != nil {
			return err
		}
	}
	why := "stopped"
	if cause := context.Cause(ctx); cause != nil {
		why = cause.Error() + "; stopped"
	}
	written := ""
	if log != nil && !out.Through() {
		written = "; the log is at " + o.csv
	}
	fmt.Fprintf(stderr, "ratelab serve: %s after %d decisions%s\n", why, decided.Load(), printable.String(written))
	return nil
}

// setUsage replaces the usage of the flag name.
func setUsage(fs *flag.FlagSet, name, usage string) { fs.Lookup(name).Usage = usage }

// checkListen refuses an address other than loopback unless public.
func checkListen(addr string, public bool) error {
	host, port, err := net.SplitHostPort(addr)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
		return usagef("serve: --listen %q: give host:port with a port from 0 to 65535, like 127.0.0.1:8080", addr)
	}
	if public {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return usagef("serve: --listen %s is not a loopback address: anyone who reaches it would be answered; add --public if that is what you want", addr)
}

// checkHorizon says which limit's arithmetic would not stay exact for a year of
// wall-clock time from the origin (algorithms.HeaderOrigin).
func checkHorizon(lanes []serve.Lane) error {
	h := time.Since(algorithms.HeaderOrigin) + 366*24*time.Hour
	for _, l := range lanes {
		for _, m := range l.Limits {
			if err := m.Policy.CheckHorizon(h); err != nil {
				return usagef("serve: lane %q: %v", l.Name, err)
			}
		}
	}
	return nil
}

// describeLane says what a served lane holds its requests to, and at which path.
func describeLane(l serve.Lane, several bool) string {
	var s string
	if several {
		s = serve.LanePath(l.Name) + "…  "
	}
	s += l.Name + ": "
	for i, m := range l.Limits {
		if i > 0 {
			s += " + "
		}
		s += fmt.Sprintf("%s %s", m.Algorithm, m.Policy)
		if m.Rule != "" {
			s += " (" + m.Rule + ")"
		}
	}
	return s + ", keyed by " + l.Key.String()
}

// serveView is --tui: the live view of the served lanes.
type serveView struct{ v *ui.Served }

func newServeView(lanes []serve.Lane) *serveView { return &serveView{ui.NewServed("", lanes)} }

func (s *serveView) add(a serve.Arrival) { s.v.Add(a) }

// run shows the view until q or ctx ends.
func (s *serveView) run(ctx context.Context, addr string) error {
	s.v.SetAddr(addr)
	_, err := tea.NewProgram(s.v, append(ui.ProgramOptions(), tea.WithContext(ctx))...).Run()
	if errors.Is(err, tea.ErrProgramKilled) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// lanesWord is "1 lane" or "N lanes".
func lanesWord(n int) string {
	if n == 1 {
		return "1 lane"
	}
	return fmt.Sprintf("%d lanes", n)
}
