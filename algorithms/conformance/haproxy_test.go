package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// The haproxy lane against HAProxy itself: the installed haproxy (Debian's
// 2.6.12) runs the stick-table configuration the lane models, on loopback, and
// a seeded schedule of requests is sent to it in real time; each answer (200 or
// 429) and the rate `show table` reports right after it are compared with the
// lane's. HAProxy decides a request at its own now_ms, some time between the
// request's send and its response (plus a millisecond of the even-tick
// rounding), so a request agrees when the lane decides as HAProxy did at some
// millisecond of that span, and the lane then counts it there. The schedule
// keeps 40 ms away from the lane's period boundaries and its entry's expiry, so
// that which period a request falls in never depends on where in its span it was
// decided.

// haproxyPolicy is the compared configuration: http_req_rate(1s), gt 3 (ge 3 when
// the lookup comes first), expire 1500ms (shorter than two periods, so an
// entry's expiry resets counts its counter would still weigh).
var (
	haproxyPolicy = algorithms.Policy{Limit: 3, Period: time.Second}
	haproxyExpire = 1500 * time.Millisecond
)

// haproxyRules are the frontend's rules for each place of track-sc0.
var haproxyRules = map[algorithms.HAProxyTrack]string{
	algorithms.TrackBeforeDeny: "    http-request track-sc0 src table st_src\n    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 3 }\n",
	algorithms.TrackAfterDeny:  "    http-request deny deny_status 429 if { src_http_req_rate(st_src) ge 3 }\n    http-request track-sc0 src table st_src\n",
}

// needHAProxy returns the haproxy binary and its version line; a test without
// one skips (fails in CI).
func needHAProxy(t *testing.T) (string, string) {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/haproxy"); serr == nil {
			bin = "/usr/sbin/haproxy"
		} else if os.Getenv("RATELAB_CI") == "1" {
			t.Fatal("haproxy is not installed; apt-get install haproxy")
		} else {
			t.Skip("haproxy is not installed: apt-get install haproxy to compare the haproxy lane with it")
		}
	}
	out, err := exec.Command(bin, "-v").Output()
	if err != nil {
		t.Fatalf("%s -v: %v", bin, err)
	}
	return bin, strings.SplitN(string(out), "\n", 2)[0]
}

// realHAProxy is one haproxy process on a loopback port, with its CLI socket.
type realHAProxy struct {
	url, sock string
	client    *http.Client
}

// startHAProxy runs haproxy with the stick table and rules for track, stopped
// (by its PID) when t ends.
func startHAProxy(t *testing.T, bin string, track algorithms.HAProxyTrack) *realHAProxy {
	t.Helper()
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	sock := filepath.Join(dir, "cli.sock")
	cfg := fmt.Sprintf(`global
    stats socket %s mode 600 level admin
defaults
    mode http
    timeout client 10s
    timeout server 10s
    timeout connect 1s
backend st_src
    stick-table type ip size 1m expire %dms store http_req_rate(%dms)
frontend fe
    bind 127.0.0.1:%d
%s    http-request return status 200
`, sock, haproxyExpire.Milliseconds(), haproxyPolicy.Period.Milliseconds(), port, haproxyRules[track])
	path := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "-db", "-f", path)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	h := &realHAProxy{url: fmt.Sprintf("http://127.0.0.1:%d/", port), sock: sock,
		client: &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
				c.Close()
				return h
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("haproxy did not start on port %d: %s", port, stderr.String())
		}
	}
}

// get sends one request and returns the status.
func (h *realHAProxy) get(t *testing.T) int {
	t.Helper()
	resp, err := h.client.Get(h.url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

var showRate = regexp.MustCompile(`key=127\.0\.0\.1 .*http_req_rate\(\d+\)=(\d+)`)

// rate is the loopback key's http_req_rate as `show table st_src` reads it now,
// 0 when it has no entry.
func (h *realHAProxy) rate(t *testing.T) int64 {
	t.Helper()
	c, err := net.Dial("unix", h.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "show table st_src\n")
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		if m := showRate.FindStringSubmatch(sc.Text()); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			return n
		}
	}
	return 0
}

// observed is one request to the real HAProxy: when it was sent and answered,
// its status, and the rate shown after it and when that answer came (ms since
// the first request was sent).
type observed struct {
	sent, answered float64
	status         int
	rate           int64
	shown          float64
}

// matcher counts observed requests into a lane: each at the millisecond of its
// span at which the lane decides as HAProxy did, nearest the span's middle.
type matcher struct {
	lane    algorithms.Limiter
	opts    algorithms.Options
	last    int64 // the millisecond the previous request was counted at
	counted tally
}

func newMatcher(lane algorithms.Limiter, opts algorithms.Options) *matcher {
	return &matcher{lane: lane, opts: opts, last: -1 << 40, counted: tally{}}
}

func msAt(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// step counts o into the lane, or says why no millisecond of its span agrees.
func (m *matcher) step(i int, o observed) error {
	check := m.lane.(algorithms.Checker).Check
	lo := max(m.last, int64(o.sent)-2)
	hi := int64(o.answered) + 3
	mid := (o.sent + o.answered) / 2
	best, agree, disagree := int64(-1), 0, 0
	for u := lo; u <= hi; u++ {
		d := check("127.0.0.1", msAt(u), 1)
		code, _ := algorithms.MustLookup(algorithms.HAProxyName).Status(d, m.opts)
		if code != o.status {
			disagree++
			continue
		}
		agree++
		if best < 0 || abs(float64(u)-mid) < abs(float64(best)-mid) {
			best = u
		}
	}
	if best < 0 {
		d := check("127.0.0.1", msAt(int64(mid)), 1)
		return fmt.Errorf("request %d sent at %.3fms, answered at %.3fms: HAProxy answered %d; the lane answers otherwise at every ms of [%d, %d] (at the middle: %+v)", i, o.sent, o.answered, o.status, lo, hi, d)
	}
	if disagree > 0 {
		m.counted["ambiguous spans"]++
	}
	d := m.lane.Allow("127.0.0.1", msAt(best), 1)
	m.last = best
	m.counted[fmt.Sprintf("status %d", o.status)]++
	// the rate show table read: the lane's level at some ms from then to the CLI's answer
	for u := best; u <= int64(o.shown)+3; u++ {
		if int64(m.lane.Level("127.0.0.1", msAt(u))) == o.rate {
			m.counted["rates"]++
			return nil
		}
	}
	return fmt.Errorf("request %d counted at %dms (%+v): show table read http_req_rate %d by %.3fms; the lane's rate is %v then", i, best, d, o.rate, o.shown, m.lane.Level("127.0.0.1", msAt(best)))
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// haproxySchedule is request i's planned time after prev (ms): bursts, gaps of
// a fraction of the period, and pauses of one to two and a half periods (past
// the entry's expiry, or past the counter's two periods; every fifteenth past
// the expiry only), kept 40 ms off the lane's period boundaries and the entry's
// expiry.
func haproxySchedule(r *rand.Rand, i int, lane *algorithms.HAProxy, prev float64) float64 {
	var gap float64
	switch x := r.IntN(100); {
	case i%15 == 14: // past the expiry, within two periods: only the expiry zeroes the count
		gap = float64(1550 + r.IntN(300))
	case x < 45:
		gap = float64(r.IntN(25))
	case x < 92:
		gap = float64(40 + r.IntN(260))
	default:
		gap = float64(1000 + r.IntN(1500))
	}
	at := prev + gap
	p := float64(lane.PeriodMS())
	for moved := true; moved; {
		moved = false
		s, ok := lane.Entry("127.0.0.1", msAt(int64(at)))
		if !ok {
			break
		}
		for _, edge := range []float64{float64(s.Tick) + p, float64(s.Tick) + 2*p, float64(s.Expire)} {
			if at > edge-40 && at < edge+40 {
				at, moved = edge+40, true
			}
		}
	}
	return at
}

// The lane decides as HAProxy 2.6 does, on both places of track-sc0: every
// answer and every rate show table reads agree (each within the request's own
// span), on 50 requests each over about twenty seconds of real time (both at once). The same
// recorded answers then fail to match lanes that decide otherwise: the other
// place of track-sc0, a threshold one higher, no expiry.
func TestTheHAProxyLaneDecidesAsHAProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a real haproxy for twenty seconds of wall-clock time; runs without -short")
	}
	bin, version := needHAProxy(t)
	t.Logf("comparing with %s", version)
	for _, track := range []algorithms.HAProxyTrack{algorithms.TrackBeforeDeny, algorithms.TrackAfterDeny} {
		t.Run(track.String(), func(t *testing.T) {
			t.Parallel()
			opts := algorithms.Options{TrackSC: track, Expire: haproxyExpire, DenyStatus: 429}
			lane, err := algorithms.New(algorithms.HAProxyName, haproxyPolicy, opts)
			if err != nil {
				t.Fatal(err)
			}
			real := startHAProxy(t, bin, track)
			m := newMatcher(lane, opts)
			r := rand.New(rand.NewPCG(uint64(track)+1, 2026))
			var obs []observed
			var plan float64
			start := time.Now()
			since := func() float64 { return float64(time.Since(start).Nanoseconds()) / 1e6 }
			for i := range 50 {
				if i > 0 {
					plan = haproxySchedule(r, i, lane.(*algorithms.HAProxy), plan)
					time.Sleep(time.Until(start.Add(time.Duration(plan * float64(time.Millisecond)))))
				} else {
					start = time.Now()
				}
				o := observed{sent: since()}
				o.status = real.get(t)
				o.answered = since()
				o.rate = real.rate(t)
				o.shown = since()
				obs = append(obs, o)
				if err := m.step(i, o); err != nil {
					t.Fatal(err)
				}
			}
			m.counted.log(t)
			if m.counted["status 429"] < 10 || m.counted["status 200"] < 20 {
				t.Errorf("the schedule compared too few of each answer: %v", m.counted)
			}
			other := algorithms.TrackAfterDeny
			if track == algorithms.TrackAfterDeny {
				other = algorithms.TrackBeforeDeny
			}
			for what, o := range map[string]algorithms.Options{
				"the other place of track-sc0": {TrackSC: other, Expire: haproxyExpire, DenyStatus: 429},
				"no expiry":                    {TrackSC: track, DenyStatus: 429},
			} {
				wrong, _ := algorithms.New(algorithms.HAProxyName, haproxyPolicy, o)
				if replay(wrong, o, obs) == nil {
					t.Errorf("a lane with %s matches HAProxy's answers too: the comparison cannot tell", what)
				}
			}
			higher := haproxyPolicy
			higher.Limit++
			wrong, _ := algorithms.New(algorithms.HAProxyName, higher, opts)
			if replay(wrong, opts, obs) == nil {
				t.Error("a lane with gt 4 matches HAProxy's gt 3 answers too: the comparison cannot tell")
			}
		})
	}
}

// replay matches recorded answers against lane, and returns the first that
// does not agree.
func replay(lane algorithms.Limiter, opts algorithms.Options, obs []observed) error {
	m := newMatcher(lane, opts)
	for i, o := range obs {
		if err := m.step(i, o); err != nil {
			return err
		}
	}
	return nil
}
