package realserver

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// NginxRequest is one request as nginx logged it.
type NginxRequest struct {
	// ID is the test's request id (the query argument id), Key the limit_req key
	// (the query argument k).
	ID  int64
	Key string
	// Connection is nginx's connection serial number ($connection).
	Connection int64
	// Status is the HTTP status; LimitStatus is $limit_req_status: PASSED,
	// DELAYED, REJECTED, DELAYED_DRY_RUN, REJECTED_DRY_RUN.
	Status      int
	LimitStatus string
	// Excess is the excess, in milli-requests, that limit_req logged with its
	// "delaying request" or "limiting requests" line; -1 when it logged none (a
	// request passed without delay).
	Excess int64
	// Delay is nginx's own delay for the request, from Excess
	// (NginxLimit.DelayOf); 0 unless LimitStatus is DELAYED or DELAYED_DRY_RUN.
	Delay time.Duration
	// RequestTime is $request_time: from the request's first byte to its log
	// line, on nginx's cached wall clock (whole milliseconds).
	RequestTime time.Duration
	// Arrival is nginx's clock (ngx_current_msec, whole milliseconds) when
	// limit_req decided the request, up to a constant the same for every
	// request of the log: only differences between arrivals mean anything.
	// Derived says how it was found.
	Arrival time.Duration
	Derived Derivation
	// Served is nginx's clock when the request was logged (answered), on the same
	// scale as Arrival; ServedKnown is false when its connection's start could
	// not be pinned (see DeriveNginxArrivals).
	Served      time.Duration
	ServedKnown bool

	// from the log, in milliseconds
	wallLogged  int64 // $msec: nginx's cached wall clock at the log line
	wallArrival int64 // $msec - $request_time: nginx's cached wall clock at the first byte
	connTime    int64 // $connection_time
	order       int   // index of the line where nginx decided it
}

// clockID is the ID of a request to /clock, which has none: it is not limited,
// and is answered at once, so its log line reads nginx's clock exactly.
const clockID = -1

// Derivation says how a request's arrival on nginx's clock was found.
type Derivation int

const (
	// ArrivalPinned: exact. The request was decided and logged in one handler
	// call, so its arrival is its connection's start plus $connection_time, and
	// the connection's start is pinned by its requests' wall-clock times.
	ArrivalPinned Derivation = iota
	// ArrivalBounded: exact. Of the two milliseconds its wall-clock time allows,
	// one only fits between the pinned arrivals decided before and after it, and
	// (delayed) before its timer fired.
	ArrivalBounded
	// ArrivalEstimated: one of two adjacent milliseconds; the likelier is taken.
	ArrivalEstimated
)

func (d Derivation) String() string {
	return [...]string{"pinned", "bounded", "estimated"}[d]
}

var (
	// 2026/11/26 09:01:55 [warn] 27310#27310: *1 delaying request, excess: 1.000, by zone "z", client: 127.0.0.1, server: , request: "GET /f?k=a&id=1 HTTP/1.1", host: "127.0.0.1:18081"
	nginxErrorLine = regexp.MustCompile(`^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d \[\w+\] \d+#\d+: \*(\d+) (limiting requests|delaying request)(, dry run)?, excess: (\d+)\.(\d{3}),? by zone "z", client: [^,]*, server: [^,]*, request: "GET /f\?k=([^& ]*)&id=(\d+) HTTP/1\.1"`)
)

// ParseNginxLog reads the events log (the access log and limit_req's error lines,
// interleaved) into requests, in the order nginx decided them: a request's
// error line ("delaying request", "limiting requests") is written when limit_req
// decides it; a request passed at once has none, and its access line is written
// in the same handler call that decided it. It checks the two agree: a line of
// each for every delayed or refused request, the error line first, and none for
// a request passed.
func ParseNginxLog(log string, l NginxLimit) ([]NginxRequest, error) {
	type errLine struct {
		order      int
		conn       int64
		excess     int64
		delaying   bool
		dry        bool
		key        string
		id         int64
		accessSeen bool
	}
	errs := map[int64]*errLine{}
	var reqs []NginxRequest
	for i, line := range strings.Split(log, "\n") {
		if strings.HasPrefix(line, "A ") {
			r, err := parseNginxAccess(line)
			if err != nil {
				return nil, fmt.Errorf("events log line %d: %v", i+1, err)
			}
			r.order = i
			e := errs[r.ID]
			switch r.LimitStatus {
			case "-": // a request to /clock
			case "PASSED":
				if e != nil {
					return nil, fmt.Errorf("events log line %d: request %d PASSED, but limit_req logged %q for it at line %d", i+1, r.ID, line, e.order+1)
				}
			case "DELAYED", "REJECTED", "DELAYED_DRY_RUN", "REJECTED_DRY_RUN":
				if e == nil {
					return nil, fmt.Errorf("events log line %d: request %d %s, and limit_req logged no line for it before", i+1, r.ID, r.LimitStatus)
				}
				if e.delaying != strings.HasPrefix(r.LimitStatus, "DELAYED") || e.dry != strings.HasSuffix(r.LimitStatus, "DRY_RUN") || e.conn != r.Connection || e.key != r.Key {
					return nil, fmt.Errorf("events log line %d: request %d %s on connection %d, but limit_req's line %d says otherwise", i+1, r.ID, r.LimitStatus, r.Connection, e.order+1)
				}
				e.accessSeen = true
				r.order = e.order
				r.Excess = e.excess
				if e.delaying {
					r.Delay = l.DelayOf(e.excess)
				}
			default:
				return nil, fmt.Errorf("events log line %d: $limit_req_status %q; want PASSED, DELAYED, REJECTED or a dry run's", i+1, r.LimitStatus)
			}
			reqs = append(reqs, r)
			continue
		}
		m := nginxErrorLine.FindStringSubmatch(line)
		if m == nil {
			continue // nginx's own notices
		}
		id, _ := strconv.ParseInt(m[7], 10, 64)
		conn, _ := strconv.ParseInt(m[1], 10, 64)
		whole, _ := strconv.ParseInt(m[4], 10, 64)
		frac, _ := strconv.ParseInt(m[5], 10, 64)
		if errs[id] != nil {
			return nil, fmt.Errorf("events log line %d: a second limit_req line for request %d", i+1, id)
		}
		errs[id] = &errLine{order: i, conn: conn, excess: whole*1000 + frac, delaying: m[2] == "delaying request", dry: m[3] != "", key: m[6], id: id}
	}
	for _, e := range errs {
		if !e.accessSeen {
			return nil, fmt.Errorf("events log line %d: limit_req decided request %d, which has no access line yet", e.order+1, e.id)
		}
	}
	// decision order: each request at its deciding line
	sortByOrder(reqs)
	return reqs, nil
}

// parseNginxAccess reads one access line (nginxLogFormat).
func parseNginxAccess(line string) (NginxRequest, error) {
	f := strings.Fields(line)
	if len(f) != 10 {
		return NginxRequest{}, fmt.Errorf("access line has %d fields, want 10: %q", len(f), line)
	}
	var r NginxRequest
	var err error
	ms := func(s, name string) int64 {
		if err != nil {
			return 0
		}
		whole, frac, ok := strings.Cut(s, ".")
		if !ok || len(frac) != 3 {
			err = fmt.Errorf("%s %q is not seconds with three decimals", name, s)
			return 0
		}
		w, e1 := strconv.ParseInt(whole, 10, 64)
		m, e2 := strconv.ParseInt(frac, 10, 64)
		if e1 != nil || e2 != nil {
			err = fmt.Errorf("%s %q is not seconds with three decimals", name, s)
		}
		return w*1000 + m
	}
	integer := func(s, name string) int64 {
		if err != nil {
			return 0
		}
		v, e := strconv.ParseInt(s, 10, 64)
		if e != nil {
			err = fmt.Errorf("%s %q is not an integer", name, s)
		}
		return v
	}
	if f[7] == "-" && f[8] == "-" && f[9] == "-" { // /clock
		f[9] = fmt.Sprint(clockID)
	}
	msec := ms(f[1], "$msec")
	rt := ms(f[2], "$request_time")
	r.connTime = ms(f[3], "$connection_time")
	r.Connection = integer(f[4], "$connection")
	r.Status = int(integer(f[6], "$status"))
	r.LimitStatus = f[7]
	r.Key = f[8]
	r.ID = integer(f[9], "$arg_id")
	r.RequestTime = time.Duration(rt) * time.Millisecond
	r.wallLogged, r.wallArrival = msec, msec-rt
	r.Excess = -1
	return r, err
}

// sortByOrder sorts requests by the line that decided them (insertion sort
// from the access order, which is nearly sorted: only delayed requests move).
func sortByOrder(reqs []NginxRequest) {
	for i := 1; i < len(reqs); i++ {
		for j := i; j > 0 && reqs[j].order < reqs[j-1].order; j-- {
			reqs[j], reqs[j-1] = reqs[j-1], reqs[j]
		}
	}
}

// DeriveNginxArrivals sets each request's Arrival: the value of nginx's clock
// limit_req read when it decided the request, which is what a replay must give
// the lane. reqs are in decision order (ParseNginxLog); requests to /clock
// among them serve as readings of the clock.
//
// nginx's clock. limit_req reads ngx_current_msec, CLOCK_MONOTONIC in whole
// milliseconds, cached: ngx_time_update sets it after each epoll_wait, together
// with the cached wall clock ($msec, gettimeofday in whole milliseconds), so every
// request handled in one event-loop iteration sees the same instant
// (src/core/ngx_times.c, src/event/modules/ngx_epoll_module.c, nginx 1.22). Both
// clocks advance together, but each is floored to the millisecond on its own, so
// at any instant the monotonic one reads the wall one plus a constant F, or F+1
// (ε ∈ {0, 1}). The log offers:
//   - $msec, the cached wall clock at the log line, and $msec - $request_time,
//     at the request's first byte (r->start_sec, start_msec), the iteration
//     that decided it: ngx_http_wait_request_handler and
//     ngx_http_keepalive_handler create the request and run it to limit_req in
//     one call;
//   - $connection_time, ngx_current_msec at the log line minus the connection's
//     own at accept (c->start_time): exact differences on the right clock, from
//     a start the log does not give.
//
// ErrClocksApart says nginx's wall clock ($msec) and its monotonic clock
// ($connection_time) did not advance together during a run — a clock slewed
// or stepped, seen on a loaded virtual machine — so the log's arrivals cannot
// be read as DeriveNginxArrivals reads them. The run says nothing about the
// lane: run it again (RunNginx does, on a fresh nginx).
var ErrClocksApart = errors.New("nginx's monotonic and wall clocks did not advance together (a clock step or slew?)")

// A request not delayed (passed, refused, any dry run, /clock) is logged in the
// handler call that decided it, so it was decided at its connection's start s
// plus $connection_time, and s + $connection_time - $msec ∈ {0, 1} (arrivals
// counted from F). Two such requests of a connection whose $msec -
// $connection_time differ by one pin s, and the arrivals of all its requests not
// delayed are then exact (ArrivalPinned). A connection whose requests all give
// the same value has two candidates; the one that keeps its arrivals between
// the pinned arrivals decided before and after them (nginx's clock never goes
// back) is taken, else the more common ε (ArrivalEstimated).
//
// A delayed request was decided at its first byte's wall clock plus ε, and
// logged when its timer fired, no sooner than its delay after (Served - Arrival
// >= Delay): of the two candidates, the one that fits between the pinned
// arrivals decided around it and its timer is taken (ArrivalBounded); when both
// fit, the later, for which the timer fired on time, the usual case: nginx
// sleeps in epoll_wait for the timer's key minus its cached clock, from a call
// made after that clock, so it wakes within the key's millisecond unless it
// waits for a CPU (ArrivalEstimated, right to a millisecond). Readings of the
// clock at /clock, thousands a second, leave few delayed requests with two
// candidates. A log no candidate fits is an error: the clocks did not behave as
// read above.
func DeriveNginxArrivals(reqs []NginxRequest) error {
	const unknown = int64(-1) << 62
	// decided in the handler call that logged it: all but a delayed request
	answeredAtOnce := func(r *NginxRequest) bool { return r.LimitStatus != "DELAYED" }

	// 1. each connection's start, as an interval of one or two candidates
	type start struct {
		lo, hi int64 // candidates lo..hi (hi-lo <= 1)
		pinned bool
	}
	starts := map[int64]*start{}
	for i := range reqs {
		r := &reqs[i]
		if !answeredAtOnce(r) {
			continue
		}
		d := r.wallLogged - r.connTime
		s := starts[r.Connection]
		if s == nil {
			s = &start{lo: d, hi: d + 1}
			starts[r.Connection] = s
		}
		s.lo, s.hi = max(s.lo, d), min(s.hi, d+1)
		if s.lo > s.hi {
			return fmt.Errorf("connection %d: its requests answered at once give starts from %d to %d ms, more than one millisecond apart: %w", r.Connection, s.hi-1, s.lo, ErrClocksApart)
		}
	}
	for _, s := range starts {
		s.pinned = s.lo == s.hi
	}

	// arrivals known exactly so far, by position; bounds from them
	exact := make([]int64, len(reqs))
	setExact := func() error {
		last := unknown
		for i := range reqs {
			r := &reqs[i]
			exact[i] = unknown
			if s := starts[r.Connection]; s != nil && s.pinned && answeredAtOnce(r) {
				exact[i] = s.lo + r.connTime
				if exact[i] < last {
					return fmt.Errorf("request %d (connection %d) was decided after a request at %d ms, at %d ms: nginx's clock went back in the log's order", r.ID, r.Connection, last, exact[i])
				}
				last = exact[i]
			}
		}
		return nil
	}
	bounds := func() (lo, hi []int64) {
		lo, hi = make([]int64, len(reqs)), make([]int64, len(reqs))
		run := unknown
		for i := range reqs {
			lo[i] = run
			run = max(run, exact[i])
		}
		run = -unknown
		for i := len(reqs) - 1; i >= 0; i-- {
			hi[i] = run
			if exact[i] != unknown {
				run = min(run, exact[i])
			}
		}
		return lo, hi
	}
	if err := setExact(); err != nil {
		return err
	}

	// 2. connections with two candidates: the one their arrivals fit the order
	// with, as long as that pins another
	fits := func(conn int64, s int64, lo, hi []int64) bool {
		for i := range reqs {
			r := &reqs[i]
			if r.Connection == conn && answeredAtOnce(r) {
				if a := s + r.connTime; a < lo[i] || a > hi[i] {
					return false
				}
			}
		}
		return true
	}
	for changed := true; changed; {
		changed = false
		lo, hi := bounds()
		for conn, s := range starts {
			if s.pinned {
				continue
			}
			okLo, okHi := fits(conn, s.lo, lo, hi), fits(conn, s.hi, lo, hi)
			switch {
			case okLo && !okHi:
				s.hi, s.pinned, changed = s.lo, true, true
			case okHi && !okLo:
				s.lo, s.pinned, changed = s.hi, true, true
			case !okLo && !okHi:
				return fmt.Errorf("connection %d: neither start it allows (%d or %d ms) keeps its arrivals in nginx's decision order", conn, s.lo, s.hi)
			}
		}
		if changed {
			if err := setExact(); err != nil {
				return err
			}
		}
	}

	// the more common ε among exact arrivals, for what stays open
	ones, all := 0, 0
	for i := range reqs {
		if exact[i] != unknown {
			all++
			if exact[i]-reqs[i].wallLogged == 1 {
				ones++
			}
		}
	}
	common := int64(0)
	if 2*ones > all {
		common = 1
	}
	for _, s := range starts {
		if !s.pinned {
			s.lo += common
			s.hi = s.lo
		}
	}

	// 3. every request: exact, bounded or estimated
	lo, hi := bounds()
	for i := range reqs {
		r := &reqs[i]
		s := starts[r.Connection]
		if s != nil {
			r.Served, r.ServedKnown = time.Duration(s.lo+r.connTime)*time.Millisecond, s.pinned
		}
		if exact[i] != unknown {
			r.Arrival, r.Derived = time.Duration(exact[i])*time.Millisecond, ArrivalPinned
			continue
		}
		if s != nil && !s.pinned && answeredAtOnce(r) {
			// its connection's start is the likelier candidate
			r.Arrival, r.Derived = time.Duration(s.lo+r.connTime)*time.Millisecond, ArrivalEstimated
			continue
		}
		var fit []int64
		for _, a := range []int64{r.wallArrival, r.wallArrival + 1} {
			if a < lo[i] || a > hi[i] {
				continue
			}
			if r.ServedKnown && a+r.Delay.Milliseconds() > r.Served.Milliseconds() {
				continue
			}
			fit = append(fit, a)
		}
		switch len(fit) {
		case 0:
			return fmt.Errorf("request %d (connection %d, %s): no arrival fits: its wall clock allows %d or %d ms, the order [%d, %d] ms, and its delay of %s before its log line at %s", r.ID, r.Connection, r.LimitStatus, r.wallArrival, r.wallArrival+1, lo[i], hi[i], r.Delay, r.Served)
		case 1:
			r.Arrival, r.Derived = time.Duration(fit[0])*time.Millisecond, ArrivalBounded
		default:
			a := r.wallArrival + common
			if r.ServedKnown {
				a = fit[1] // the later: its timer fired on time
			}
			r.Arrival, r.Derived = time.Duration(a)*time.Millisecond, ArrivalEstimated
		}
	}
	return nil
}
