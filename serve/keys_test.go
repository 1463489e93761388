package serve_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/serve"
)

// A lane holds at most MaxKeys keys, the keys in use: a new key past them is
// refused (503 KEYS_FULL) while they are held, and let in once a sweep finds
// one idle (its bucket full again), even while the others stay held. A key
// shared by every request (a template without {key}) is one state, and counts
// no request key. Served and replayed, the sweeps fall alike.
func TestALaneHoldsTheKeysInUse(t *testing.T) {
	key, _ := serve.ParseKey("header:X-Key")
	bucket := func(tmpl string) serve.Lane {
		template, _ := algorithms.ParseKeyTemplate(tmpl)
		return serve.Lane{Name: "tb", Key: key, Limits: []serve.Limit{{Algorithm: algorithms.TokenBucketName,
			Policy: algorithms.Policy{Limit: 1, Period: time.Second, Burst: 2}, Template: template}}}
	}
	full := func(a serve.Arrival) bool { return a.Status == http.StatusServiceUnavailable && a.Word == "KEYS_FULL" }
	type ask struct {
		at   time.Duration
		key  string
		full bool // answered KEYS_FULL
		held int  // keys held after it
	}
	nginx := serve.Lane{Name: "nginx", Key: key, Limits: []serve.Limit{{Algorithm: algorithms.NginxName,
		Policy: algorithms.Policy{Limit: 10, Period: time.Second, Burst: 5}}}}
	for _, tc := range []struct {
		name string
		lane serve.Lane
		asks []ask
	}{
		{"per key", bucket("{key}"), []ask{
			{0, "a", false, 1}, {0, "b", false, 2}, {0, "c", true, 2},
			// a's bucket spent one token at 0: full again by 1s; b keeps spending
			{900 * time.Millisecond, "b", false, 2}, {1500 * time.Millisecond, "b", false, 2},
			// c finds the lane full: its sweep (the last was at 0) lets go of
			// a, full again, and keeps b (1.6 tokens); a finds it full, and the
			// next sweep a second away
			{1600 * time.Millisecond, "c", false, 2}, {1700 * time.Millisecond, "a", true, 2},
			{2700 * time.Millisecond, "a", false, 2},
		}},
		// a key every request shares is one state: the lane counts no
		// request keys, and none is refused for them
		{"one key for all", bucket("everyone"), []ask{
			{0, "a", false, 0}, {0, "b", false, 0}, {0, "c", false, 0}, {time.Second, "d", false, 0},
		}},
		// nginx lets go of a node only as a new key comes, once it has been
		// idle 60 s (its expiry): a new key is offered, and refused when no
		// node made room; at 61 s the expiry takes a and b for c, d finds
		// room too (a and b are counted until the next sweep, at 62 s), and
		// e none
		{"nginx's expiry", nginx, []ask{
			{0, "a", false, 1}, {0, "b", false, 2}, {time.Second, "c", true, 2}, {59 * time.Second, "c", true, 2},
			{61 * time.Second, "c", false, 3}, {61 * time.Second, "d", false, 4},
			{62 * time.Second, "e", true, 2},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := serve.Options{Lanes: []serve.Lane{tc.lane}, MaxKeys: 2}
			s, err := serve.New(o)
			if err != nil {
				t.Fatal(err)
			}
			var served []serve.Arrival
			for i, q := range tc.asks {
				a := s.Decide(0, q.key, "test", q.at)
				if full(a) != q.full || a.Held != q.held || s.Keys(0) != q.held {
					t.Fatalf("ask %d, %q at %s: KEYS_FULL %v with %d keys held (Keys %d), want %v with %d", i, q.key, q.at, full(a), a.Held, s.Keys(0), q.full, q.held)
				}
				served = append(served, a)
			}
			replayed, err := serve.Replay(o, served)
			if err != nil {
				t.Fatal(err)
			}
			for i := range served {
				if full(replayed[i]) != full(served[i]) || replayed[i].Held != served[i].Held || replayed[i].Allowed != served[i].Allowed {
					t.Errorf("ask %d replayed: KEYS_FULL %v, %d held, allowed %v; served %v, %d, %v", i, full(replayed[i]), replayed[i].Held, replayed[i].Allowed, full(served[i]), served[i].Held, served[i].Allowed)
				}
			}
		})
	}
}

// Two keys are one only when they are the same bytes: a header holding the
// byte 0x80 and one holding the text `\x80` (what the log shows for the byte)
// have a bucket each; the log shows the byte escaped, and the text's backslash
// doubled, so the two read apart there too.
func TestKeysAreTheirBytes(t *testing.T) {
	key, _ := serve.ParseKey("header:X-Key")
	lane := serve.Lane{Name: "tb", Key: key, Limits: []serve.Limit{{Algorithm: algorithms.TokenBucketName,
		Policy: algorithms.Policy{Limit: 2, Period: time.Hour, Burst: 2}}}}
	var logged []serve.Arrival
	s, err := serve.New(serve.Options{Lanes: []serve.Lane{lane}, OnDecision: func(a serve.Arrival) { logged = append(logged, a) }})
	if err != nil {
		t.Fatal(err)
	}
	ask := func(value string) int {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header["X-Key"] = []string{value}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		return w.Code
	}
	for i, q := range []struct {
		value string
		want  int
	}{{"\x80", 200}, {"\x80", 200}, {"\x80", 429}, {`\x80`, 200}, {`\x80`, 200}, {`\x80`, 429}} {
		if got := ask(q.value); got != q.want {
			t.Errorf("request %d, X-Key %q: %d, want %d", i, q.value, got, q.want)
		}
	}
	if len(logged) != 6 || logged[0].Key != "\x80" || logged[3].Key != `\x80` {
		t.Fatalf("the decisions' keys: %d decisions, first %q, fourth %q", len(logged), logged[0].Key, logged[3].Key)
	}
	var b strings.Builder
	log := serve.NewLog(&b, s.Lanes())
	log.Write(logged[0])
	log.Write(logged[3])
	if err := log.Flush(); err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(b.String(), "\n")
	if len(rows) != 4 || !strings.Contains(rows[1], `,\x80,`) || strings.Contains(b.String(), "\x80") {
		t.Errorf("the log's row of the byte 0x80 does not show it escaped:\n%q", b.String())
	}
	// the text shows its backslash doubled: the two keys read apart
	if !strings.Contains(rows[2], `,\\x80,`) {
		t.Errorf("the log's row of the text \\x80 does not read apart from the byte's:\n%q", b.String())
	}
}

// A key of several values is one key only when every value is: ("1+2", "3")
// and ("1", "2+3") have a bucket each, as have ("a\", "+b") and ("a", "\+b").
// A key of one value is the value as sent, "+" and all.
func TestSeveralValuesMakeOneKeyOnlyWhenEachIsTheSame(t *testing.T) {
	key, err := serve.ParseKey("header:A+header:B")
	if err != nil {
		t.Fatal(err)
	}
	keyOf := func(a, b string) string {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("A", a)
		req.Header.Set("B", b)
		return key.Of(req)
	}
	pairs := [][2]string{{"1+2", "3"}, {"1", "2+3"}, {`a\`, "+b"}, {"a", `\+b`}, {`a\+`, "b"}, {"a", "b"}, {"", "+"}, {"+", ""}}
	seen := map[string][2]string{}
	for _, p := range pairs {
		k := keyOf(p[0], p[1])
		if other, ok := seen[k]; ok {
			t.Errorf("%q and %q share the key %q", p, other, k)
		}
		seen[k] = p
	}
	if got := keyOf("1", "2"); got != "1+2" {
		t.Errorf("values without + or \\ are joined as they are: %q, want 1+2", got)
	}
	one, _ := serve.ParseKey("path")
	req := httptest.NewRequest(http.MethodGet, `/a+b\c`, nil)
	if got := one.Of(req); got != `/a+b\c` {
		t.Errorf("a key of one value: %q, want the path as sent", got)
	}
}

// A key longer than MaxKeyBytes as kept is refused with 400 and a message
// that says how it was counted: a value of 300 "+" in a key of two values is
// 600 bytes escaped; 300 plain bytes, or a one-value key of 512, pass.
func TestAKeyOverTheBoundIsRefused(t *testing.T) {
	ask := func(spec, a, b string) (int, string) {
		key, err := serve.ParseKey(spec)
		if err != nil {
			t.Fatal(err)
		}
		lane := serve.Lane{Name: "tb", Key: key, Limits: []serve.Limit{{Algorithm: algorithms.TokenBucketName,
			Policy: algorithms.Policy{Limit: 10, Period: time.Second, Burst: 10}}}}
		s, err := serve.New(serve.Options{Lanes: []serve.Lane{lane}})
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("A", a)
		req.Header.Set("B", b)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		return w.Code, w.Body.String()
	}
	for _, tc := range []struct {
		spec, a, b string
		want       int
	}{
		{"header:A", strings.Repeat("x", serve.MaxKeyBytes), "", 200},
		{"header:A", strings.Repeat("x", serve.MaxKeyBytes+1), "", 400},
		{"header:A+header:B", strings.Repeat("x", 300), "y", 200},
		{"header:A+header:B", strings.Repeat("+", 300), "y", 400},
	} {
		code, body := ask(tc.spec, tc.a, tc.b)
		if code != tc.want {
			t.Errorf("%s, A of %d bytes: %d, want %d (%s)", tc.spec, len(tc.a), code, tc.want, body)
		}
		if code == 400 && !strings.Contains(body, "bytes as kept") {
			t.Errorf("%s: the refusal does not say how the key was counted: %q", tc.spec, body)
		}
	}
}
