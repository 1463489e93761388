package scenarios

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"ratelab/algorithms"
	"ratelab/internal/check"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"ratelab/sim"
)

// minimal is a valid scenario that the error cases below break one piece at a time.
const minimal = `[[scenario]]
name = "s"
duration = "2s"

[scenario.policy]
limit = 10

[[scenario.client]]
name = "c"
pattern = "constant"
rate = 5
`

func parse(t *testing.T, doc string, files map[string]string) (*Catalogue, error) {
	t.Helper()
	fsys := fstest.MapFS{"dir/test.toml": {Data: []byte(doc)}}
	for name, body := range files {
		fsys["dir/"+name] = &fstest.MapFile{Data: []byte(body)}
	}
	return Parse(FSSource(fsys, "dir/test.toml"), []byte(doc))
}

func TestEmbeddedCatalogueCompilesEveryScenario(t *testing.T) {
	c, err := LoadFS(os.DirFS(".."), "scenarios.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"boundary-burst", "bursty-user", "retry-storm", "thundering-herd", "clock-skew", "non-atomic-race", "llm-cost", "rollover", "tiers", "log-stamped", "log-spread", "trace-replay"}
	for _, name := range want {
		cfg, err := c.Compile(name, Overrides{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if cfg.Title == "" || len(cfg.Lesson) < 200 {
			t.Errorf("%s: every shipped scenario needs a title and a paragraph on what to look at (lesson of %d characters)", name, len(cfg.Lesson))
		}
	}
}

func TestDefaults(t *testing.T) {
	c, err := parse(t, minimal, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile("s", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Tiers[0].Policy
	switch {
	case p.Period != time.Second || p.Burst != 10:
		t.Errorf("policy %s; want period 1s and burst = limit", p)
	case cfg.Tick != 10*time.Millisecond || cfg.Seed != 1:
		t.Errorf("tick %v, seed %d; want 10ms and 1", cfg.Tick, cfg.Seed)
	case len(cfg.Lanes) != 7 || cfg.Lanes[0].Name != "fixed-window" || cfg.Lanes[6].Name != "x-time-rate":
		t.Errorf("lanes %v; want all seven algorithms", cfg.Lanes)
	case !cfg.Lanes[4].Options.MonotonicTimestamp || cfg.Lanes[5].Options.MonotonicTimestamp:
		t.Error("the timestamp fix should default on for the token bucket, and only there")
	case cfg.Keys[0].Name != "c" || cfg.Nodes[0].Name != "app" || cfg.Clients[0].Stop != 2*time.Second:
		t.Errorf("key %q, node %q, stop %v; want the client's name, \"app\", the duration", cfg.Keys[0].Name, cfg.Nodes[0].Name, cfg.Clients[0].Stop)
	case cfg.Clients[0].Retry.MaxAttempts != 1:
		t.Error("a client without retry must not retry")
	}
}

func TestOverrides(t *testing.T) {
	c, err := parse(t, minimal, nil)
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(99)
	cfg, err := c.Compile("s", Overrides{Seed: &seed, Lanes: []string{"gcra", "fixed-window"}, Limit: 20, Burst: 3})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Seed != 99 || len(cfg.Lanes) != 2 || cfg.Lanes[0].Name != "fixed-window" || cfg.Tiers[0].Policy.Limit != 20 || cfg.Tiers[0].Policy.Burst != 3 {
		t.Errorf("seed %d, lanes %v, policy %s; want 99, fixed-window then gcra (file order), 20 per 1s burst 3", cfg.Seed, cfg.Lanes, cfg.Tiers[0].Policy)
	}
	// a lane named after one an algorithm already kept is kept once, not "no lane"
	named, err := parse(t, minimal+"[[scenario.lane]]\nalgorithm = \"gcra\"\n[[scenario.lane]]\nname = \"g2\"\nalgorithm = \"gcra\"\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if both, err := named.Compile("s", Overrides{Lanes: []string{"gcra", "g2"}}); err != nil || len(both.Lanes) != 2 {
		t.Errorf("--lanes gcra,g2: %v, %d lanes; want both gcra lanes", err, len(both.Lanes))
	}
	if _, err := c.Compile("s", Overrides{Lanes: []string{"gcr"}}); err == nil || !strings.Contains(err.Error(), `--lanes: scenario "s" has no lane or algorithm "gcr"; its lanes are: fixed-window, sliding-log`) {
		t.Errorf("unknown lane: %v", err)
	}
	if _, err := c.Compile("nope", Overrides{}); err == nil || !strings.Contains(err.Error(), `unknown scenario "nope" in dir/test.toml; known: s`) {
		t.Errorf("unknown scenario: %v", err)
	}
}

// Each bad input gets one message naming the place and the fix.
func TestBadInput(t *testing.T) {
	replace := func(old, new string) string {
		if !strings.Contains(minimal, old) {
			t.Fatalf("test setup: %q not in the minimal scenario", old)
		}
		return strings.Replace(minimal, old, new, 1)
	}
	client := func(extra string) string { return minimal + extra + "\n" }
	// pattern switches the client to another pattern (dropping its rate) plus extra
	pattern := func(name, extra string) string {
		return strings.Replace(replace(`pattern = "constant"`, `pattern = "`+name+`"`), "rate = 5\n", extra+"\n", 1)
	}
	for _, tc := range []struct {
		name, doc, want string
		files           map[string]string
	}{
		{"syntax", replace("[scenario.policy]", "[scenario.policy"), "dir/test.toml:5:17: expected ']' to close table name", nil},
		{"misspelled key", replace("limit = 10", "limit = 10\nburts = 5"), `dir/test.toml:7:1: unknown key "burts" in [scenario.policy]; did you mean "burst"?`, nil},
		{"unknown key", replace("rate = 5", "rate = 5\nflavour = 1"), `dir/test.toml:12:1: unknown key "flavour" in [scenario.client]; known keys: name, node, tier`, nil},
		{"wrong type", replace("limit = 10", `limit = "ten"`), `dir/test.toml:6:9: scenario.policy.limit: cannot decode TOML string where a whole number belongs`, nil},
		{"bad duration", replace(`duration = "2s"`, `duration = "2 sec"`), `dir/test.toml:3:12: scenario.duration: "2 sec" is not a duration; write a number with a unit, in quotes, like "250ms", "1.5s" or "2m"`, nil},
		{"negative duration", replace(`duration = "2s"`, `duration = "-2s"`), `dir/test.toml:3:12: scenario "s": duration must be > 0 (got "-2s")`, nil},
		{"rate <= 0", replace("rate = 5", "rate = -5"), `dir/test.toml:11:8: scenario "s": client "c": rate must be a number > 0 (got -5); it is requests per 1s`, nil},
		{"limit <= 0", replace("limit = 10", "limit = 0"), `dir/test.toml:6:9: scenario "s": [scenario.policy]: limit must be > 0 (got 0)`, nil},
		{"cost above burst", replace("rate = 5", "rate = 5\ncost = 20"), `dir/test.toml:12:8: scenario "s": client "c": a request may cost 20, more than lane "fixed-window"'s limit per window of 10, so it could never be accepted; lower the cost or raise the limit per window`, nil},
		{"cost above a bucket's burst", replace("limit = 10", "limit = 10\nburst = 4\n[[scenario.lane]]\nalgorithm = \"gcra\"") + "cost = 5\n", `client "c": a request may cost 5, more than lane "gcra"'s burst of 4`, nil},
		{"unknown algorithm", minimal + "[[scenario.lane]]\nalgorithm = \"token-buckett\"\n", `dir/test.toml:13:13: scenario.lane: algorithm must be one of ` + quotedNames() + ` (got "token-buckett"); did you mean "token-bucket"?`, nil},
		{"misplaced option", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nrollover = 3\n", `dir/test.toml:14:12: scenario "s": lane "gcra": rollover applies to fixed-window only (this lane runs gcra)`, nil},
		{"misplaced timestamp fix", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nmonotonic_timestamp = false\n", `dir/test.toml:14:23: scenario "s": lane "gcra": monotonic_timestamp applies to token-bucket only (this lane runs gcra)`, nil},
		{"multi on a window", minimal + "[[scenario.lane]]\nalgorithm = \"sliding-log\"\nstrategy = \"multi\"\n", `strategy "multi" applies to token-bucket and gcra`, nil},
		{"unknown node", client(`node = "z"`), `client "c": node "z" is not defined; add a [[scenario.node]] named "z" or use one of: app`, nil},
		{"no clients", "[[scenario]]\nname = \"s\"\nduration = \"1s\"\n[scenario.policy]\nlimit = 1\n", `dir/test.toml:1:1: scenario "s": has no [[scenario.client]]; add at least one source of traffic`, nil},
		{"no policy", strings.Replace(minimal, "[scenario.policy]\nlimit = 10\n", "", 1), `scenario "s": has no [scenario.policy]; add one with at least limit = N`, nil},
		{"bad name", replace(`name = "s"`, `name = "Big Name"`), `scenario "Big Name": name must be lowercase letters, digits and dashes (got "Big Name")`, nil},
		{"duplicate scenario", minimal + "\n" + minimal, `dir/test.toml:14:8: two scenarios are named "s"; names must be unique`, nil},
		{"stop after the end", client(`stop = "5s"`), `client "c": stop must be after start (0s) and at most the duration 2s (got 5s)`, nil},
		{"closed loop without pause", pattern("closed-loop", "concurrency = 4"), `client "c": a closed loop needs think or latency > 0`, nil},
		{"too much load", replace("rate = 5", "rate = 1e9"), `client "c": offers about 2e+09 requests over 2s; ratelab replays at most 100000000 per scenario`, nil},
		{"overlapping bursts", pattern("bursts", `bursts = [{ at = "1s", count = 5, spread = "1s" }, { at = "1500ms", count = 5 }]`), `client "c": burst 2 at 1.5s starts before burst 1 ends`, nil},
		{"bad retry policy", client(`retry = { policy = "sometimes" }`), `dir/test.toml:12:20: scenario.client.retry: policy must be one of "none", "immediate", "fixed", "exponential", "retry-after" (what Retry-After says) (got "sometimes")`, nil},
		{"missing trace", pattern("trace", `file = "nope.csv"`), `client "c": open dir/nope.csv: file does not exist (the path is relative to dir/test.toml)`, nil},
		{"empty trace", pattern("trace", `file = "t.csv"`), `client "c": t.csv: the trace has no requests; give a file with at least one`, map[string]string{"t.csv": "time_ms,key\n"}},
		{"trace format unknown", pattern("trace", `file = "t.dat"`), `client "c": cannot tell the format of t.dat from its name or its first lines: "x" is not a Common or Combined Log line, a JSON object or a CSV header; set format = "clf", "jsonl" or "csv"`, map[string]string{"t.dat": "x"}},
		{"trace format by content", pattern("trace", `file = "t.dat"`), `client "c": t.dat: the trace has no requests`, map[string]string{"t.dat": "time_ms,key\n"}},
		{"trace key field missing", pattern("trace", "file = \"t.csv\"\nkey = \"user\""), `client "c": t.csv:1: the header (time_ms,key) has no column "user" for the key; set key to one of its columns`, map[string]string{"t.csv": "time_ms,key\n1,a\n"}},
		{"trace time layout", pattern("trace", "file = \"t.log\""), `client "c": t.log: none of its 1 lines could be read as clf; the first: t.log:1: time "2000-10-10 13:55:36] \"GET / …" is not [day/month/year:hour:minute:second zone]`, map[string]string{"t.log": "1.2.3.4 - - [2000-10-10 13:55:36] \"GET / HTTP/1.1\" 200 1\n"}},
		{"trace spread as a duration", pattern("trace", "file = \"t.csv\"\nspread = \"1s\""), `client "c": a trace's spread is "none" or "uniform", not a duration (got 1s)`, map[string]string{"t.csv": "time_ms,key\n1,a\n"}},
		{"closed loop spread as a word", pattern("closed-loop", "concurrency = 2\nthink = \"1s\"\nspread = \"uniform\""), `client "c": spread must be a duration from 0 to 24h0m0s for a closed loop (got uniform)`, nil},
		{"trace option on another pattern", client(`reorder_window = "1m"`), `client "c": reorder_window does not apply to pattern "constant" (it uses rate, per); remove it`, nil},
		{"unknown watch key", replace(`duration = "2s"`, "duration = \"2s\"\nwatch_key = \"q\""), `scenario "s": watch_key "q" is not a key any client uses`, nil},
		{"unknown key in watch_keys", replace(`duration = "2s"`, "duration = \"2s\"\nwatch_keys = [\"q\"]"), `dir/test.toml:4:14: scenario "s": watch_keys[0] "q" is not a key any client uses`, nil},
		{"period not exact", replace("limit = 10", "limit = 10\nperiod = \"1.0000005s\""), `period must be a whole number of microseconds`, nil},
		{"too large for exact arithmetic", replace("limit = 10", "limit = 999983\nperiod = \"3h\""), `limit 999983 (or burst 999983) over a period of 3h0m0s is too large for exact arithmetic`, nil},
		{"longer than a day without a trace", replace(`duration = "2s"`, `duration = "25h"`), `duration must be at most 24h0m0s (got 25h0m0s); only a scenario with a trace may be longer`, nil},
		{"too long for exact arithmetic", strings.Replace(replace("limit = 10", "limit = 999983\nperiod = \"1h\""), `"2s"`, `"24h"`, 1), `lane "fixed-window": a run of 24h0m0s at 999983 per 1h0m0s, burst 999983 is too long for exact arithmetic`, nil},
		{"key the pattern does not use", client(`file = "x.csv"`), `client "c": file does not apply to pattern "constant" (it uses rate, per); remove it`, nil},

		// numbers the engine cannot compute with (issue 8): each was accepted and
		// looped for ever, or ran with times and costs that wrapped around
		{"rate nan", replace("rate = 5", "rate = nan"), `dir/test.toml:11:8: scenario "s": client "c": rate must be a number > 0 (got NaN)`, nil},
		{"rate inf", replace("rate = 5", "rate = inf"), `client "c": rate must be a number > 0 (got +Inf)`, nil},
		{"rate per second overflows", replace("rate = 5", "rate = 1e308\nper = \"1ns\""), `client "c": rate must be a number > 0 (got 1e+308)`, nil},
		{"rate 1e-10", replace("rate = 5", "rate = 1e-10"), `dir/test.toml:11:8: scenario "s": client "c": rate 1e-10 per 1s is less than one request in 24h0m0s, the longest run without a trace, so the client would send at most one; raise it, or send one request with pattern = "bursts"`, nil},
		{"rate 1e-300", replace("rate = 5", "rate = 1e-300"), `client "c": rate 1e-300 per 1s is less than one request in 24h0m0s`, nil},
		{"rate denormal", replace("rate = 5", "rate = 5e-324"), `client "c": rate 5e-324 per 1s is less than one request`, nil},
		{"poisson rate tiny", strings.Replace(replace("rate = 5", "rate = 1e-300"), `"constant"`, `"poisson"`, 1), `client "c": rate 1e-300 per 1s is less than one request`, nil},
		{"ramp to nan", pattern("ramp", "rate = 10\nrate_to = nan"), `dir/test.toml:11:8: scenario "s": client "c": a ramp needs rate (at start) and rate_to (at stop), numbers >= 0, not both 0 (got 10 and NaN)`, nil},
		{"ramp of tiny rates", pattern("ramp", "rate = 1e-300\nrate_to = 1e-300"), `client "c": rate 1e-300 per 1s is less than one request`, nil},
		{"lognormal sigma nan", client(`cost_distribution = { distribution = "lognormal", median = 2, sigma = nan, max = 5 }`), `dir/test.toml:12:21: scenario "s": client "c": a lognormal cost needs median, a number > 0, and sigma, a number >= 0 (got median 2, sigma NaN)`, nil},
		{"jitter nan", replace("limit = 10", "limit = 10\nretry_after_jitter = nan"), `dir/test.toml:7:22: scenario "s": [scenario.policy]: retry_after_jitter must be a number from 0 to 1 (got NaN)`, nil},
		{"lane jitter nan", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nretry_after_jitter = nan\n", `lane "gcra": retry_after_jitter must be a number from 0 to 1 (got NaN)`, nil},
		{"latency of a year", client(`latency = "8760h"`), `client "c": latency must be from 0 to 24h0m0s (got 8760h0m0s)`, nil},
		{"retry cap of a year", client(`retry = { policy = "exponential", cap = "8760h" }`), `client "c": retry: cap must be at most 24h0m0s (got 8760h0m0s)`, nil},
		{"service time of a year", minimal + "[scenario.backend]\nconcurrency = 1\nservice_time = \"8760h\"\n", `backend: service_time must be > 0 and at most 24h0m0s (got 8760h0m0s)`, nil},
		{"burst at a year", pattern("bursts", `bursts = [{ at = "8760h", count = 1 }]`), `client "c": burst 1: at and spread must be from 0 to 24h0m0s (got 8760h0m0s and 0s)`, nil},

		// names that would break the table or reach the terminal raw
		{"lane name with an escape", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nname = \"red\\u001b[31m\"\n", `dir/test.toml:14:8: scenario "s": lane 1: lane name "red\x1b[31m" holds a control character (U+001B); remove it`, nil},
		{"lane name with a newline", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nname = \"a\\nb\"\n", `lane name "a\nb" holds a control character (U+000A)`, nil},
		{"client name with a tab", replace(`name = "c"`, `name = "c\tc"`), `dir/test.toml:9:8: scenario "s": client 1: client name "c\tc" holds a control character (U+0009)`, nil},
		{"key with an escape", client(`key = "k\u001b[2J"`), `dir/test.toml:12:7: scenario "s": client "c": key "k\x1b[2J" holds a control character (U+001B)`, nil},
		{"key prefix with a bell", client("keys = 3\nkey_prefix = \"k\\u0007\""), `client "c": key "k\a-0" holds a control character (U+0007)`, nil},
		{"node name with a newline", minimal + "[[scenario.node]]\nname = \"n\\r\"\n", `node 1: node name "n\r" holds a control character`, nil},
		{"tier name with an escape", minimal + "[[scenario.tier]]\nname = \"t\\u001b\"\nlimit = 5\n", `tier 1: tier name "t\x1b" holds a control character`, nil},
		{"lane name with a bidi override", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nname = \"evil\\u202Egnp.exe\"\n", `dir/test.toml:14:8: scenario "s": lane 1: lane name "evil\u202egnp.exe" holds a bidirectional control (U+202E), which turns text around on a terminal; remove it`, nil},
		{"claim with an escape", minimal + "[[scenario.claim]]\nid = \"x\"\nsays = \"a \\u001b[2J claim\"\nlane = \"gcra\"\nmetric = \"accepted\"\nop = \">\"\nvalue = 0\n", `scenario "s": claim "x": says "a \x1b[2J claim" holds a control character (U+001B)`, nil},
		{"title with an escape", replace(`name = "s"`, "name = \"s\"\ntitle = \"\\u001b]0;pwned\\u0007\""), `dir/test.toml:3:9: scenario "s": title "\x1b]0;pwned\a" holds a control character (U+001B)`, nil},

		// messages
		{"duration as a number", replace(`duration = "2s"`, `duration = 5`), `dir/test.toml:3:12: scenario.duration: "5" is not a duration; write a number with a unit, in quotes`, nil},
		{"spread as a number", pattern("bursts", `bursts = [{ at = "1s", count = 2, spread = 1.5 }]`), `dir/test.toml:11:44: scenario.client.bursts.spread: "1.5" is not a duration`, nil},
		{"utf-16", "\xff\xfe[\x00[\x00", `dir/test.toml:1:1: the file is UTF-16; save it as UTF-8`, nil},

		// settings with a fixed set of words, read as the file is decoded: placed by
		// the decoder at the word, with the words there are and the nearest one
		{"misspelt backend", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nbackend = \"redsi\"\n", `dir/test.toml:14:11: scenario.lane: backend must be one of "memory", "redis" (got "redsi"); did you mean "redis"?`, nil},
		{"backend as a number", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nbackend = 5\n", `dir/test.toml:14:11: scenario.lane: backend must be one of "memory", "redis" (got "5")`, nil},
		{"backend as a boolean", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nbackend = true\n", `dir/test.toml:14:11: scenario.lane: backend must be one of "memory", "redis" (got "true")`, nil},
		{"backend as an array", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nbackend = [\"redis\"]\n", `dir/test.toml:14:11: scenario.lane.backend: cannot decode TOML array where a string belongs`, nil},
		{"misspelt pattern", replace(`pattern = "constant"`, `pattern = "constnat"`), `dir/test.toml:10:11: scenario.client: pattern must be one of "constant", "poisson", "bursts", "ramp", "closed-loop", "trace", "hand" (got "constnat"); did you mean "constant"?`, nil},
		{"missing pattern", strings.Replace(minimal, "pattern = \"constant\"\nrate = 5\n", "", 1), `dir/test.toml:8:1: scenario "s": client "c": pattern is missing; use one of "constant", "poisson", "bursts", "ramp", "closed-loop", "trace", "hand"`, nil},
		{"misspelt retry on", client(`retry = { policy = "fixed", on = ["deny", "eror"] }`), `dir/test.toml:12:43: scenario.client.retry: on must be one of "deny" (a 429), "error" (a backend failure) (got "eror"); did you mean "error"?`, nil},
		{"misspelt clock fix", minimal + "[[scenario.change]]\nat = \"1s\"\nclock_fix = \"of\"\n", `dir/test.toml:14:13: scenario.change: clock_fix must be one of "on", "off", "as-configured" (got "of"); did you mean "on"?`, nil},
		{"misspelt store change", minimal + "[[scenario.change]]\nat = \"1s\"\nstore = \"donw\"\n", `dir/test.toml:14:9: scenario.change: store must be one of "down" (unreachable: on_error decides), "up" (answers again), "flushed" (every key lost, as after a failover to an empty replica), "failover" (the replica takes over: a deployment with replica_lag loses the lag's writes, any other store every key) (got "donw"); did you mean "down"?`, nil},
		{"quoted key", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\n\"mode\" = \"metre\"\n", `dir/test.toml:14:10: scenario.lane: mode must be one of "queue", "meter" (got "metre"); did you mean "meter"?`, nil},

		// values of the wrong type, named as written, with what belongs there in words
		{"wrong type in an inline table", client(`retry = { policy = "fixed", max_attempts = "five" }`), `dir/test.toml:12:44: scenario.client.retry.max_attempts: cannot decode TOML string where a whole number belongs`, nil},
		{"wrong type in an array", replace(`duration = "2s"`, "duration = \"2s\"\nwatch_keys = [\"c\", 3]"), `dir/test.toml:4:20: scenario.watch_keys: cannot decode TOML integer where a string belongs`, nil},
		{"a table where a number belongs", replace("limit = 10", "limit = { n = 10 }"), `dir/test.toml:6:9: scenario.policy.limit: cannot decode TOML inline table where a whole number belongs`, nil},
		{"a number where a table belongs", replace(`name = "c"`, "name = \"c\"\nretry = 3"), `dir/test.toml:10:9: scenario.client.retry: cannot decode TOML integer where a table belongs`, nil},

		// a setting whose default is not zero, written as zero: an error at its
		// place, not the default taken with nothing said
		{"policy burst 0", replace("limit = 10", "limit = 10\nburst = 0"), `dir/test.toml:7:9: scenario "s": burst = 0 is not a setting: burst must be >= 1; leave it out for the default, the limit`, nil},
		{"policy period 0s", replace("limit = 10", "limit = 10\nperiod = \"0s\""), `dir/test.toml:7:10: scenario "s": period = 0 is not a setting: period must be > 0; leave it out for the default, 1s`, nil},
		{"tier burst 0", minimal + "[[scenario.tier]]\nname = \"t\"\nlimit = 5\nburst = 0\n", `dir/test.toml:15:9: scenario "s": burst = 0 is not a setting`, nil},
		{"lane burst 0", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nburst = 0\n", `dir/test.toml:14:9: scenario "s": burst = 0 is not a setting: burst must be >= 1; leave it out for the scenario's`, nil},
		{"tick 0s", replace(`duration = "2s"`, "duration = \"2s\"\ntick = \"0ms\""), `dir/test.toml:4:8: scenario "s": tick = 0 is not a setting`, nil},
		{"client per 0s", client(`per = "0s"`), `dir/test.toml:12:7: scenario "s": per = 0 is not a setting: per must be > 0; leave it out for the default, 1s`, nil},
		{"client cost 0", client(`cost = 0`), `dir/test.toml:12:8: scenario "s": cost = 0 is not a setting: cost must be >= 1`, nil},
		{"client deliveries 0", client(`deliveries = 0`), `dir/test.toml:12:14: scenario "s": deliveries = 0 is not a setting`, nil},
		{"client keys 0", client(`keys = 0`), `dir/test.toml:12:8: scenario "s": keys = 0 is not a setting`, nil},
		{"retry max_attempts 0", client(`retry = { policy = "fixed", max_attempts = 0 }`), `dir/test.toml:12:44: scenario "s": max_attempts = 0 is not a setting: max_attempts must be from 1 to 1000, the first attempt included; for no retries use policy = "none"`, nil},
		{"retry delay 0s", client(`retry = { policy = "fixed", delay = "0s" }`), `dir/test.toml:12:37: scenario "s": delay = 0 is not a setting: delay must be > 0; for no delay use policy = "immediate"`, nil},
		{"lognormal sigma 0", client(`cost_distribution = { distribution = "lognormal", median = 2, sigma = 0, max = 5 }`), `scenario "s": sigma = 0 is not a setting`, nil},

		// a store that fails or forgets, and a lane's ttl: where each applies
		{"on_error with nothing to fail", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\non_error = \"open\"\n", `dir/test.toml:14:12: scenario "s": lane "gcra": on_error decides when the store fails: on a backend = "redis" lane, in a scenario whose store goes down (a [[scenario.change]] with store = "down"), or for a deployed lane's instances a partition cuts off; this lane's store never fails`, nil},
		{"ttl on redis", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nbackend = \"redis\"\nttl = \"1m\"\n", `dir/test.toml:15:7: scenario "s": lane "gcra": ttl is kept on the virtual clock, in memory: Redis expires keys on its own wall clock, which a simulated run outpaces; keep the lane in memory`, nil},
		{"ttl with multi", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nstrategy = \"multi\"\nttl = \"1m\"\n", `dir/test.toml:15:7: scenario "s": lane "gcra": ttl applies to atomic lanes (strategy "multi" reads and writes the state itself)`, nil},
		{"ttl 0s", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nttl = \"0s\"\n", `dir/test.toml:14:7: scenario "s": lane "gcra": ttl must be from 1µs to 24h0m0s, a whole number of microseconds (got 0s); leave it out for keys that never expire`, nil},
		{"ttl of two days", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nttl = \"48h\"\n", `ttl must be from 1µs to 24h0m0s`, nil},
		{"change that changes nothing", minimal + "[[scenario.change]]\nat = \"1s\"\n", `the change changes nothing; set rate, retry, clock_fix, glitch, store, or a deployed lane's instances`, nil},
		{"change to too much load", minimal + "[[scenario.change]]\nat = \"1s\"\nclient = \"c\"\nrate = 1e300\n", `dir/test.toml:15:8: scenario "s": change 1 (at 1s): client "c" at 1e+300 per 1s from 1s offers about 1e+300 requests until its stop at 2s; ratelab replays at most 100000000 per scenario`, nil},

		// a limit kept per instance behind a load balancer
		{"balance without instances", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nbalance = \"random\"\n", `dir/test.toml:14:11: scenario "s": lane "gcra": balance applies to a lane kept on several instances; add instances = N (2 or more)`, nil},
		{"misspelt balance", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\ninstances = 2\nbalance = \"round-robbin\"\n", `dir/test.toml:15:11: scenario.lane: balance must be one of "round-robin" (in turn), "random", "weighted" (in the shares of weights), "hash" (consistent hashing of the key), "sticky" (each client to one instance) (got "round-robbin"); did you mean "round-robin"?`, nil},
		{"weighted without weights", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\ninstances = 3\nbalance = \"weighted\"\n", `scenario "s": lane "gcra": balance = "weighted" needs weights, one number per instance (3; got 0)`, nil},
		{"weights without weighted", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\ninstances = 2\nweights = [1, 2]\n", `dir/test.toml:15:11: scenario "s": lane "gcra": weights apply to balance = "weighted" (this lane's balance is "round-robin")`, nil},
		{"a weight of 0", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\ninstances = 2\nbalance = \"weighted\"\nweights = [1, 0]\n", `lane "gcra": weights[1] must be from 1 to 1000000 (got 0)`, nil},
		{"instances and shards", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\ninstances = 2\nshards = 2\n", `lane "gcra": a lane is sharded (shards) or kept per instance (instances), not both`, nil},
		{"instances on redis", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\nbackend = \"redis\"\ninstances = 2\n", `dir/test.toml:15:13: scenario "s": lane "gcra": instances keep the limit in each instance's own memory; a lane on Redis shares one store`, nil},
		{"instances 0", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\ninstances = 0\n", `dir/test.toml:14:13: scenario "s": lane "gcra": instances must be from 1 to 1000 (got 0)`, nil},
		{"a share of less than one", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\ninstances = 11\nper_instance = \"share\"\n", `lane "gcra": instances = 11 with per_instance = "share" is more than the burst (10) of tier "default"`, nil},
		{"misspelt per_instance", minimal + "[[scenario.lane]]\nalgorithm = \"gcra\"\ninstances = 2\nper_instance = \"half\"\n", `per_instance must be one of "whole" (the lane's whole policy, each), "share" (the policy divided by the instances) (got "half")`, nil},

		// a list given as one string
		{"exclude as a string", strings.Replace(strings.Replace(minimal, `pattern = "constant"`, `pattern = "trace"`, 1), "rate = 5\n", "file = \"t.csv\"\nexclude = \"assets\"\n", 1), `dir/test.toml:12:11: scenario.client.exclude: cannot decode TOML string where an array belongs`, map[string]string{"t.csv": "time_ms,key\n0,a\n"}},

		// a claim that names no lane: placed at the name, with the nearest
		{"claim names no lane", minimal + "[[scenario.claim]]\nid = \"x\"\nsays = \"s\"\nlane = \"gcrx\"\nmetric = \"accepted\"\nop = \">=\"\nvalue = 1\n", `dir/test.toml:15:8: scenario "s": claim "x": no lane or algorithm "gcrx"; the lanes are: fixed-window, sliding-log, sliding-counter, leaky-bucket, token-bucket, gcra, x-time-rate; did you mean "gcra"?`, nil},
		{"claim lists no such lane", minimal + "[[scenario.claim]]\nid = \"x\"\nsays = \"s\"\nlanes = [\"gcra\", \"token-buckets\"]\nmetric = \"accepted\"\nop = \">=\"\nvalue = 1\n", `dir/test.toml:15:18: scenario "s": claim "x": no lane or algorithm "token-buckets"; the lanes are: fixed-window, sliding-log, sliding-counter, leaky-bucket, token-bucket, gcra, x-time-rate; did you mean "token-bucket"?`, nil},
		{"claim than no lane", minimal + "[[scenario.claim]]\nid = \"x\"\nsays = \"s\"\nlane = \"gcra\"\nmetric = \"accepted\"\nop = \">=\"\nthan = \"sliding-logs\"\n", `dir/test.toml:18:8: scenario "s": claim "x": no lane or algorithm "sliding-logs"; the lanes are: fixed-window, sliding-log, sliding-counter, leaky-bucket, token-bucket, gcra, x-time-rate; did you mean "sliding-log"?`, nil},
		{"claim op misspelt", minimal + "[[scenario.claim]]\nid = \"x\"\nsays = \"s\"\nlane = \"gcra\"\nmetric = \"accepted\"\nop = \"=>\"\nvalue = 1\n", `dir/test.toml:17:6: scenario.claim: op must be one of "<", "<=", "==", "!=", ">=", ">" (got "=>"); did you mean "=="?`, nil},
	} {
		_, err := parse(t, tc.doc, tc.files)
		if err == nil {
			t.Errorf("%s: no error, want %q", tc.name, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got: %v\nwant: %s", tc.name, err, tc.want)
		}
		if strings.Contains(err.Error(), "struct field") || strings.Contains(err.Error(), "scenarios.") {
			t.Errorf("%s: the message names Go's types, not what belongs:\n%v", tc.name, err)
		}
	}
}

func TestTraceKeysAreInterned(t *testing.T) {
	doc := strings.Replace(minimal, `pattern = "constant"`, `pattern = "trace"`, 1) + "file = \"t.csv\"\n"
	doc = strings.Replace(doc, "rate = 5\n", "", 1)
	c, err := parse(t, doc, map[string]string{"t.csv": "time_ms,key,cost\n0,b,1\n5,a,3\n9,b,2\n"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := c.Compile("s", Overrides{})
	tr := cfg.Clients[0].Pattern.(sim.Trace)
	if tr.Rows != 3 || tr.MaxCost != 3 || len(cfg.Clients[0].Keys) != 2 || cfg.Keys[cfg.Clients[0].Keys[tr.KeyIndex["a"]]].Name != "a" {
		t.Errorf("trace: %d rows, max cost %d, keys %v (index %v); want 3, 3, two keys b and a", tr.Rows, tr.MaxCost, cfg.Keys, tr.KeyIndex)
	}
}

func TestFileSourceOpensBesideTheFile(t *testing.T) {
	dir := t.TempDir()
	check.Setup(t, os.WriteFile(dir+"/s.toml", []byte(strings.Replace(minimal, `pattern = "constant"`, `pattern = "trace"`, 1)+"file = \"sub/t.csv\"\n"), 0o644))
	check.Setup(t, os.Mkdir(dir+"/sub", 0o755))
	check.Setup(t, os.WriteFile(dir+"/sub/t.csv", []byte("time_ms,key\n0,a\n"), 0o644))
	_, err := Load(dir + "/s.toml")
	if err == nil || !strings.Contains(err.Error(), `rate does not apply to pattern "trace"`) {
		t.Fatalf("Load: %v; want the rate on a trace client reported", err)
	}
	doc, _ := os.ReadFile(dir + "/s.toml")
	check.Setup(t, os.WriteFile(dir+"/s.toml", []byte(strings.Replace(string(doc), "rate = 5\n", "", 1)), 0o644))
	c, err := Load(dir + "/s.toml")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	// the files it reads, which a command must not write over
	if cfg, err := c.Compile("s", Overrides{}); err != nil || strings.Join(cfg.Files, " ") != dir+"/s.toml "+dir+"/sub/t.csv" {
		t.Errorf("Files = %v, %v; want the scenario file and its trace", cfg.Files, err)
	}
	if embedded, _ := LoadFS(fstest.MapFS{"s.toml": {Data: []byte(minimal)}}, "s.toml"); embedded != nil {
		if cfg, _ := embedded.Compile("s", Overrides{}); cfg == nil || cfg.Files != nil {
			t.Errorf("an embedded catalogue reads %v from disk", cfg.Files)
		}
	}
	if _, err := Load(dir + "/missing.toml"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

// FuzzParse: whatever the bytes, Parse returns a catalogue or an error; it never
// panics, and an error always says which file.
func FuzzParse(f *testing.F) {
	f.Add([]byte(minimal))
	data, _ := os.ReadFile("../scenarios.toml")
	f.Add(data)
	f.Add([]byte(strings.Replace(minimal, `pattern = "constant"`, `pattern = "bursts"`, 1) + `bursts = [{ at = "1s", count = 3 }]`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		src := Source{Name: "fuzz.toml", Open: func(string) (io.ReadCloser, error) { return nil, fs.ErrNotExist }}
		c, err := Parse(src, doc)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.toml") && !strings.HasPrefix(err.Error(), "--lanes") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, name := range c.Names() {
			cfg, err := c.Compile(name, Overrides{})
			if err != nil {
				t.Fatalf("compiled once in Parse, failed the second time: %v", err)
			}
			if cfg.Duration <= 0 || cfg.Tick <= 0 || len(cfg.Lanes) == 0 || len(cfg.Clients) == 0 {
				t.Fatalf("accepted an unusable config: %+v", cfg)
			}
		}
	})
}

// A byte-order mark, as Excel and Notepad write, is skipped; a scenario shorter
// than the default tick gets a tick of its whole duration (it was told to shorten
// a tick it never wrote).
func TestByteOrderMarkAndShortScenarios(t *testing.T) {
	c, err := parse(t, "\uFEFF"+minimal, nil)
	if err != nil {
		t.Fatalf("a file with a byte-order mark: %v", err)
	}
	if c.Names()[0] != "s" {
		t.Errorf("names %v", c.Names())
	}
	if _, err := parse(t, "\uFEFF"+strings.Replace(minimal, "limit = 10", "limt = 10", 1), nil); err == nil || !strings.HasPrefix(err.Error(), "dir/test.toml:6:1: ") {
		t.Errorf("an error after a byte-order mark is placed at %v; want line 6, column 1", err)
	}
	c, err = parse(t, strings.Replace(minimal, `"2s"`, `"5ms"`, 1), nil)
	if err != nil {
		t.Fatalf("a 5 ms scenario: %v", err)
	}
	cfg, _ := c.Compile("s", Overrides{})
	if cfg.Tick != 5*time.Millisecond {
		t.Errorf("a 5 ms scenario has tick %v, want 5ms", cfg.Tick)
	}
}

// A scenario file larger than MaxFileSize, or a device that never ends, is
// refused after MaxFileSize bytes, not read into memory whole.
func TestLoadRefusesAFileTooLarge(t *testing.T) {
	big := t.TempDir() + "/big.toml"
	if err := os.WriteFile(big, []byte(minimal), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxFileSize+1); err != nil { // the rest reads as zeros
		t.Fatal(err)
	}
	want := "big.toml: more than 16 MiB, too large for a scenario file"
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Load(a file of %d bytes): %v; want %q", MaxFileSize+1, err, want)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := Load("/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero: more than 16 MiB") {
			t.Errorf("Load(/dev/zero): %v; want it refused after 16 MiB", err)
		}
	}
	if err := os.Truncate(big, int64(len(minimal))); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); err != nil {
		t.Errorf("Load(the file cut back to its scenario): %v", err)
	}
}

// quotedNames is every algorithm's name, quoted, in registry order, as a
// message lists them.
func quotedNames() string {
	var q []string
	for _, n := range algorithms.Names() {
		q = append(q, strconv.Quote(string(n)))
	}
	return strings.Join(q, ", ")
}

// A store that goes down, comes back and is flushed, as changes: inputs in time
// order; on_error on a lane in memory (its store now fails), clock = "server" in
// memory (the limiter's own clock), a ttl; and under --redis the ttl lane stays
// in memory while the other moves.
func TestStoreChangesAndTTL(t *testing.T) {
	doc := minimal + `[[scenario.lane]]
algorithm = "token-bucket"
on_error = "open"
clock = "server"
ttl = "1m30s"
[[scenario.lane]]
algorithm = "gcra"
[[scenario.change]]
at = "1500ms"
store = "flushed"
[[scenario.change]]
at = "500ms"
store = "down"
[[scenario.change]]
at = "1s"
store = "up"
`
	c, err := parse(t, doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile("s", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range cfg.Inputs {
		got = append(got, fmt.Sprintf("%v %v", in.At, in.Store))
	}
	if want := "500ms down,1s up,1.5s flushed"; strings.Join(got, ",") != want || cfg.Inputs[0].Kind != sim.InputStore {
		t.Errorf("inputs %v, want %s, each a store change", got, want)
	}
	tb := cfg.Lanes[0]
	if tb.OnError != sim.FailOpen || tb.Clock != sim.ServerClock || tb.TTL != 90*time.Second || cfg.Lanes[1].TTL != 0 {
		t.Errorf("lane %+v; want on_error open, the server's clock, a ttl of 1m30s (and none on gcra)", tb)
	}
	onRedis, err := c.Compile("s", Overrides{Redis: true})
	if err != nil {
		t.Fatal(err)
	}
	if onRedis.Lanes[0].Backend != sim.InMemory || onRedis.Lanes[1].Backend != sim.OnRedis {
		t.Errorf("under --redis: the ttl lane on %v, gcra on %v; want memory (a ttl is kept on the virtual clock) and redis", onRedis.Lanes[0].Backend, onRedis.Lanes[1].Backend)
	}
	// a session saved with a store change made live writes it back
	path, session, err := c.WriteSession("s", Overrides{}, append(cfg.Inputs, sim.Input{At: 1800 * time.Millisecond, Kind: sim.InputStore, Store: sim.StoreDown}), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	saved, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	again, err := saved.Compile(session, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(again.Inputs); n != 4 || again.Inputs[3].Store != sim.StoreDown || again.Inputs[3].At != 1800*time.Millisecond {
		t.Errorf("the saved session's inputs: %+v; want the three changes and a store down at 1.8s", again.Inputs)
	}
}

// A trace client's exclude leaves out the requests it names before anything
// counts them (the assets here), and a bad one is refused at its place.
func TestTraceExclude(t *testing.T) {
	doc := strings.Replace(minimal, `pattern = "constant"`, `pattern = "trace"`, 1) + "file = \"t.log\"\nexclude = [\"assets\", \"agent=*bot*\"]\n"
	doc = strings.Replace(doc, "rate = 5\n", "", 1)
	log := `10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "Firefox"
10.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET /a.css HTTP/1.1" 200 5 "-" "Firefox"
66.249.66.1 - - [10/Oct/2000:13:55:37 -0700] "GET / HTTP/1.1" 200 5 "-" "Googlebot/2.1"
10.0.0.2 - - [10/Oct/2000:13:55:37 -0700] "GET /p HTTP/1.1" 200 5 "-" "Firefox"
`
	c, err := parse(t, doc, map[string]string{"t.log": log})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile("s", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if tr := cfg.Clients[0].Pattern.(sim.Trace); tr.Rows != 2 {
		t.Errorf("%d rows replayed; want 2 (the asset and the bot left out)", tr.Rows)
	}
	bad := strings.Replace(doc, `"agent=*bot*"`, `"referer=x"`, 1)
	c, err = parse(t, bad, map[string]string{"t.log": log})
	if err == nil {
		_, err = c.Compile("s", Overrides{})
	}
	if err == nil || !strings.Contains(err.Error(), "test.toml:12:11: ") || !strings.Contains(err.Error(), "path, agent, method or status") {
		t.Errorf("a bad exclusion: %v", err)
	}
}
