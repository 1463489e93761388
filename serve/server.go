package serve

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/printable"
)

// MaxKeys is the default bound on the keys a lane holds: past it a new key is
// answered 503 (Options.MaxKeys) until a sweep lets go of idle ones.
const MaxKeys = 100_000

// MaxKeyBytes is the longest key a request may have; a longer one is refused
// with 400, before any limiter holds it.
const MaxKeyBytes = 512

// Options say what a Server serves and how.
type Options struct {
	Lanes []Lane
	// Upstream, when set, is where an allowed request is passed (a reverse
	// proxy); nil answers 200 itself.
	Upstream *url.URL
	// MaxKeys bounds each lane's keys (0: MaxKeys).
	MaxKeys int
	// Now reads the wall clock (nil: time.Now); Origin is the instant the
	// limiters' time counts from (zero: algorithms.HeaderOrigin).
	Now    func() time.Time
	Origin time.Time
	// OnDecision, when set, is called with each decision, under the server's
	// lock, in the order they are made (the log, a live view).
	OnDecision func(Arrival)
}

// Arrival is one decision as it was made: which lane, the request's key and
// client, its instant from the origin and the answer.
type Arrival struct {
	Seq    int64
	Lane   int
	Key    string
	Client string
	At     time.Duration
	Decision
	Rule string
	// Held is the keys the lane holds after it (see Server.Keys).
	Held int
}

// Server answers requests with its lanes' limiters.
type Server struct {
	opts   Options
	mu     sync.Mutex
	lanes  []*lane
	byName map[string]int
	seq    int64
	proxy  *httputil.ReverseProxy
}

// New makes a Server of o's lanes, each with fresh limiters.
func New(o Options) (*Server, error) {
	if len(o.Lanes) == 0 {
		return nil, errors.New("no lane to serve")
	}
	if o.MaxKeys <= 0 {
		o.MaxKeys = MaxKeys
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Origin.IsZero() {
		o.Origin = algorithms.HeaderOrigin
	}
	s := &Server{opts: o, byName: map[string]int{}}
	for i, l := range o.Lanes {
		sl, err := newLane(l)
		if err != nil {
			return nil, err
		}
		s.lanes = append(s.lanes, sl)
		s.byName[l.Name] = i
	}
	if o.Upstream != nil {
		s.proxy = httputil.NewSingleHostReverseProxy(o.Upstream)
		s.proxy.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "ratelab serve: the upstream did not answer: "+err.Error(), http.StatusBadGateway)
		}
	}
	return s, nil
}

// Lanes are the lanes served, in order.
func (s *Server) Lanes() []Lane { return s.opts.Lanes }

// Decide decides one request of key on lane i at at (from the origin), as a
// served request is decided; client is the address logged. Exported for
// Replay and for tests that drive the server without HTTP.
func (s *Server) Decide(i int, key, client string, at time.Duration) Arrival {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.decideLocked(i, key, client, at)
}

func (s *Server) decideLocked(i int, key, client string, at time.Duration) Arrival {
	l := s.lanes[i]
	s.seq++
	a := Arrival{Seq: s.seq, Lane: i, Key: key, Client: client, At: at}
	_, known := l.keys[key]
	if at >= l.nextSweep && l.sweepDue(!known && len(l.keys) >= s.opts.MaxKeys) {
		l.sweep(at)
		_, known = l.keys[key]
	}
	d, ok := Decision{}, true
	if known || !l.countsKeys || len(l.keys) < s.opts.MaxKeys {
		d = l.decide(key, at)
	} else {
		d, ok = l.decideIfRoom(key, at, s.opts.MaxKeys)
	}
	if ok {
		if l.countsKeys {
			l.keys[key] = struct{}{}
		}
		a.Decision = d
		a.Rule = l.rule(a.Decision)
		a.Status, a.Word = status(l, a.Decision)
		a.Headers = headers(l, a.Decision, at+s.opts.Origin.Sub(algorithms.HeaderOrigin))
	} else {
		a.Decision = Decision{Decisive: -1, Status: http.StatusServiceUnavailable, Word: "KEYS_FULL"}
		a.Rule = fmt.Sprintf("ratelab serve: the lane holds its %d keys (--max-keys)", s.opts.MaxKeys)
	}
	a.Held = len(l.keys)
	if s.opts.OnDecision != nil {
		s.opts.OnDecision(a)
	}
	return a
}

// status is the product's answer to d, else 200 or 429.
func status(l *lane, d Decision) (int, string) {
	m := l.Limits[max(d.Decisive, 0)]
	if d.Decisive < 0 {
		m = l.Limits[len(l.Limits)-1]
	}
	if info, ok := algorithms.Lookup(m.Algorithm); ok && info.Status != nil {
		return info.Status(d.Decision, m.Options)
	}
	if d.Allowed {
		return http.StatusOK, "PASSED"
	}
	return http.StatusTooManyRequests, "REJECTED"
}

// headers are the rate-limit headers l's responses send for d at now (from
// algorithms.HeaderOrigin): none from a product that sends none.
func headers(l *lane, d Decision, now time.Duration) []algorithms.Header {
	m := l.Limits[0]
	if d.Decisive >= 0 {
		m = l.Limits[d.Decisive]
	}
	info, ok := algorithms.Lookup(m.Algorithm)
	if !ok || info.Shape == algorithms.ShapeNone || !info.SendsHeaders(m.Options) {
		return nil
	}
	name := m.Name
	if name == "" {
		name = l.Name
	}
	quotas := []algorithms.Quota{{Name: name, Policy: m.Policy, Decision: d.Decision}}
	switch {
	case len(d.Limits) > 1: // every limit asked, under its own name
		quotas = quotas[:0]
		for i, ld := range d.Limits {
			lm := l.Limits[i]
			quotas = append(quotas, algorithms.Quota{Name: cmp.Or(lm.Name, lm.Rule, string(lm.Algorithm)), Policy: lm.Policy, Decision: ld})
		}
	case info.Windows != nil && len(d.Windows) > 0:
		quotas = quotas[:0]
		for i, q := range info.Windows(m.Policy, m.Options) {
			if i < len(d.Windows) {
				q.Policy.Limit, q.Decision = d.Windows[i].Limit, d.Windows[i]
				quotas = append(quotas, q)
			}
		}
	}
	return l.Headers.Render(now, d.Decision, quotas)
}

// ServeHTTP keys, decides and answers one request. With several lanes the
// path's first segment names the lane ("/nginx/login" asks lane "nginx" about
// "/login"); "/" lists them.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	i, ok := s.route(r)
	if !ok {
		s.index(w, r)
		return
	}
	l := s.lanes[i]
	raw := l.Key.Of(r)
	if len(raw) > MaxKeyBytes {
		http.Error(w, fmt.Sprintf("ratelab serve: the request's key is %d bytes as kept (its values joined, a multi-value key's \\ and + escaped), over %d", len(raw), MaxKeyBytes), http.StatusBadRequest)
		return
	}
	// the key as sent, any bytes: two keys are one only when they are the
	// same bytes (the log and the view show it escaped, package printable)
	s.mu.Lock()
	at := s.opts.Now().Sub(s.opts.Origin)
	a := s.decideLocked(i, raw, r.RemoteAddr, at)
	s.mu.Unlock()
	for _, h := range a.Headers {
		w.Header().Set(h.Name, h.Value)
	}
	if !a.Allowed {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(a.Status)
		fmt.Fprintf(w, "%d %s: %s", a.Status, http.StatusText(a.Status), a.Word)
		if a.Rule != "" {
			fmt.Fprintf(w, " by %s", printable.String(a.Rule))
		}
		if a.RetryAfter > 0 && a.RetryAfter != algorithms.Forever {
			fmt.Fprintf(w, "; retry after %s", a.RetryAfter)
		}
		fmt.Fprintln(w)
		return
	}
	if a.Delay > 0 { // held, as the product holds it; a client that gives up is let go
		t := time.NewTimer(a.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if s.proxy != nil {
		s.proxy.ServeHTTP(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(a.Status)
	fmt.Fprintf(w, "%d %s\n", a.Status, a.Word)
}

// route finds r's lane: the only one, or the one its path's first segment
// names, whose segment it then drops from the path (for the upstream).
func (s *Server) route(r *http.Request) (int, bool) {
	if len(s.lanes) == 1 {
		return 0, true
	}
	// split the path as sent: a lane's name may hold a slash, escaped
	rest := strings.TrimPrefix(r.URL.EscapedPath(), "/")
	seg, tail, _ := strings.Cut(rest, "/")
	name, err := url.PathUnescape(seg)
	if err != nil {
		return 0, false
	}
	i, ok := s.byName[name]
	if !ok {
		return 0, false
	}
	path, err := url.PathUnescape("/" + tail)
	if err != nil {
		return 0, false
	}
	r.URL.Path, r.URL.RawPath = path, "/"+tail
	if r.URL.RawPath == path {
		r.URL.RawPath = ""
	}
	return i, true
}

// LanePath is the path prefix of lane name when several are served.
func LanePath(name string) string { return "/" + url.PathEscape(name) + "/" }

// index answers a request that names no lane: the lanes and their paths, 404.
func (s *Server) index(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintln(w, "ratelab serve: name a lane as the path's first segment:")
	for _, l := range s.opts.Lanes {
		fmt.Fprintf(w, "  %s…  %s\n", LanePath(l.Name), printable.String(describe(l)))
	}
}

// describe says what a lane holds a request to.
func describe(l Lane) string {
	var parts []string
	for _, m := range l.Limits {
		parts = append(parts, fmt.Sprintf("%s %s", m.Algorithm, m.Policy))
	}
	return strings.Join(parts, " + ") + ", keyed by " + l.Key.String()
}

// Keys is how many keys lane i holds: the request keys whose state one of
// its limits holds, as of its last sweep (see lane.sweep), and every key
// asked about since.
func (s *Server) Keys(i int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.lanes[i].keys)
}

// ms writes d as milliseconds with three decimals (the request CSV's time_ms).
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64)
}
