package algorithms

// The HAProxy lane's settings: where its track-sc0 rule sits, its options
// (deny_status, expire, track, version) and the release whose arithmetic it
// follows.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// HAProxyTrack says where the lane's http-request track-sc0 rule sits relative
// to its deny rule, which decides whether a denied request is counted.
type HAProxyTrack int

const (
	// TrackBeforeDeny is the common configuration:
	//
	//	http-request track-sc0 src table st_src
	//	http-request deny deny_status 429 if { sc_http_req_rate(0) gt N }
	//
	// Every request is counted as it is tracked, then the ACL reads a rate that
	// includes it: denied requests are counted too.
	TrackBeforeDeny HAProxyTrack = iota
	// TrackAfterDeny looks the source up without tracking it, and tracks only
	// what passes:
	//
	//	http-request deny deny_status 429 if { src_http_req_rate(st_src) ge N }
	//	http-request track-sc0 src table st_src
	//
	// A denied request is neither counted nor refreshes the entry. (With
	// sc_http_req_rate(0) before the track-sc0 rule the fetch finds no tracked
	// counter and the deny never matches: that configuration limits nothing.)
	TrackAfterDeny
)

// String is the option's word: "before-deny" or "after-deny".
func (t HAProxyTrack) String() string {
	if t == TrackAfterDeny {
		return "after-deny"
	}
	return "before-deny"
}

// haproxyOptions are the HAProxy lane's scenario keys.
var haproxyOptions = []Option{
	{Key: "track_sc", Doc: `where http-request track-sc0 sits: "before-deny" (default; denied requests are counted, deny if { sc_http_req_rate(0) gt N }) or "after-deny" (deny if { src_http_req_rate(st_src) ge N } first; denied requests are not counted)`,
		set: func(o Options) string {
			return setIf(o.TrackSC != TrackBeforeDeny, `track_sc = "`+o.TrackSC.String()+`"`)
		}},
	{Key: "expire", Doc: "the stick-table's expire: an entry no request has tracked for this long is gone, and the next starts from zero; default 0, no expire (entries never expire)",
		set: func(o Options) string { return setIf(o.Expire != 0, "expire") }},
	{Key: "deny_status", Doc: "the status of a denial (http-request deny deny_status); default 403",
		set: func(o Options) string { return setIf(o.DenyStatus != 0, "deny_status") }},
	{Key: "haproxy_version", Doc: `the HAProxy release whose counters the lane runs: "1.8.29", "2.0.21", "2.1.12" and "2.2.11" never rotate a counter of a period of a second or more; before "1.8", periods start on odd milliseconds too; default the newest (2.4 to 3.4 decide alike)`,
		set: func(o Options) string { return setIf(o.HAProxyVersion != "", "haproxy_version") }},
}

// haproxyDefaultDenyStatus is http-request deny's status when deny_status is
// not given (doc/configuration.txt, "http-request deny").
const haproxyDefaultDenyStatus = 403

// haproxyDenyStatuses are the statuses http-request deny deny_status accepts in
// 2.6: the codes HAProxy has a default error file for (src/http.c,
// http_err_codes); parse_http_reply refuses any other with "status code '%d'
// not handled by default with 'default-errorfiles' argument".
var haproxyDenyStatuses = []int{200, 400, 401, 403, 404, 405, 407, 408, 410, 413, 421, 422, 425, 429, 500, 501, 502, 503, 504}

// haproxyMaxMS is the longest time HAProxy's parse_time_err takes, in ms: 2^31
// − 1 (about 24.8 days); a longer one is a "timer overflow" error.
const haproxyMaxMS = math.MaxInt32

// haproxyCheck checks the HAProxy lane's options: what HAProxy itself refuses,
// with its message's gist.
func haproxyCheck(o Options) error {
	if o.DenyStatus != 0 && !slices.Contains(haproxyDenyStatuses, o.DenyStatus) {
		codes := make([]string, len(haproxyDenyStatuses))
		for i, c := range haproxyDenyStatuses {
			codes[i] = strconv.Itoa(c)
		}
		return &OptionError{"deny_status", fmt.Errorf("deny_status %d is not one HAProxy 2.6 can send from a deny (it has a default error page for %s only)", o.DenyStatus, strings.Join(codes, ", "))}
	}
	return nil
}

// haproxyExpireCheck checks expire's range, for every lane (only the HAProxy
// lane takes it).
func haproxyExpireCheck(o Options) error {
	if o.Expire < 0 || ceilMS(o.Expire) > haproxyMaxMS {
		return &OptionError{"expire", fmt.Errorf("expire must be from 0 to %s, the longest HAProxy takes (got %s)", time.Duration(haproxyMaxMS)*time.Millisecond, o.Expire)}
	}
	return nil
}

// HAProxyRelease is what an HAProxy release changes in how a stick-table
// counter decides.
type HAProxyRelease struct {
	// EvenTicks: a period's start is rounded down to an even millisecond, bit 0
	// of curr_tick being the counter's lock. From 1.8 (commit 94b712337,
	// "MEDIUM: threads/freq_ctr: Make the frequency counters thread-safe").
	EvenTicks bool
	// SecondClock: the counters read the millisecond within the second
	// ((uint32_t)global_now / 1000, the tv_usec half of global_now) instead of
	// now_ms, so a counter whose period is a second or more never rotates and
	// counts every request since its entry was created. Commit a1ecbca0a
	// ("BUG/MINOR: freq_ctr/threads: make use of the last updated global time"),
	// backported into 1.8.29, 2.0.21, 2.1.12 and 2.2.11; fixed by 8cc586c7
	// ("BUG/MEDIUM: freq_ctr/threads: use the global_now_ms variable", v2.4.0,
	// and the next release of each branch); haproxy/haproxy#1196.
	SecondClock bool
}

// ParseHAProxyVersion reads an HAProxy release ("2.6", "2.2.11") as the lane
// runs it; "" is the newest. A release without a patch number is its branch's
// latest. An error names a version that is not an HAProxy release with
// http-request track-sc (1.6 and later).
func ParseHAProxyVersion(version string) (HAProxyRelease, error) {
	if version == "" {
		return HAProxyRelease{EvenTicks: true}, nil
	}
	bad := fmt.Errorf("haproxy_version %q is not an HAProxy release with http-request track-sc0 (1.6 or later); write one such as \"2.6\" or \"2.2.11\"", version)
	parts := strings.Split(version, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return HAProxyRelease{}, bad
	}
	nums := make([]int, len(parts))
	for i, s := range parts {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || s == "" || (len(s) > 1 && s[0] == '0') {
			return HAProxyRelease{}, bad
		}
		nums[i] = n
	}
	major, minor := nums[0], nums[1]
	if major < 1 || major > 3 || (major == 1 && minor < 6) {
		return HAProxyRelease{}, bad
	}
	rel := HAProxyRelease{EvenTicks: major > 1 || minor >= 8}
	if len(nums) == 3 {
		switch [3]int{major, minor, nums[2]} {
		case [3]int{1, 8, 29}, [3]int{2, 0, 21}, [3]int{2, 1, 12}, [3]int{2, 2, 11}:
			rel.SecondClock = true
		}
	}
	return rel, nil
}
