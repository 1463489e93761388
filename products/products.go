// Package products reads the configuration files of the products whose rate
// limiters ratelab emulates — nginx's nginx.conf (limit_req) and HAProxy's
// haproxy.cfg (stick tables and http_req_rate) — into lanes: every context that
// limits requests, with its limits in the product's own terms (nginx: rate,
// burst, nodelay, delay, dry run, status; HAProxy: period, threshold, whether
// denied requests are counted, expire, status) and what identifies a client in
// a request log for each (its key).
//
// A file is checked as the product checks it: what the product refuses is an
// *Error at its file:line, with the fix. What the file does that changes
// limiting and that ratelab does not model (nginx's limit_conn or limit_rate, a
// key set by a map, a return before the limits run; HAProxy's other counters,
// tarpit, combined conditions) is a Warning at its file:line: never silently
// left out.
//
// The YAML and JSON products go through the same seam (tree.go: one node tree
// with each value's line, from go.yaml.in/yaml/v3's nodes, encoding/json's
// tokens or go-toml's parser): Envoy's local rate limit filter and the rate
// limit service (envoy.go), Cloudflare's rules and API Gateway's usage plans
// and stages (cloud.go), Spring Cloud Gateway's RequestRateLimiter, Traefik's
// rateLimit middleware and Kong's rate-limiting plugin (gateways.go). A field
// the product does not have, or a value it refuses, is an *Error at its line
// with the fix; what the lane does not model is a Warning at its line.
package products

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/printable"
)

// Product is a product whose configuration ratelab reads.
type Product int

const (
	// Unknown is no product: Read tells it from the file's content.
	Unknown Product = iota
	// Nginx is nginx's ngx_http_limit_req_module, read from an nginx.conf.
	Nginx
	// HAProxy is HAProxy's stick tables with http_req_rate, read from a
	// haproxy.cfg.
	HAProxy
	// EnvoyLocal is Envoy's local rate limit filter
	// (envoy.filters.http.local_ratelimit), read from Envoy's YAML: its
	// LocalRateLimit typed_config wherever it is (a listener's http_filters,
	// a route's typed_per_filter_config, or the typed_config alone).
	EnvoyLocal
	// EnvoyGlobal is envoyproxy/ratelimit, the rate limit service Envoy's
	// global filter asks, read from the service's YAML (domain, descriptors).
	EnvoyGlobal
	// Cloudflare is Cloudflare's rate limiting rules, read from the JSON of
	// the Rulesets API (a ruleset, its rules, or one rule).
	Cloudflare
	// APIGateway is Amazon API Gateway's throttling, read from the JSON of a
	// usage plan (throttle, quota, apiStages) or a stage (methodSettings).
	APIGateway
	// Spring is Spring Cloud Gateway's RequestRateLimiter filter
	// (RedisRateLimiter), read from an application.yml's routes.
	Spring
	// Traefik is Traefik's rateLimit middleware, read from its dynamic
	// configuration in YAML or TOML.
	Traefik
	// Kong is Kong's rate-limiting plugin, read from a declarative
	// configuration (kong.yml).
	Kong
)

// productNames are the products' names: each its lane's (algorithms), as
// --config-format and a scenario's product write them.
var productNames = [...]string{"", string(algorithms.NginxName), string(algorithms.HAProxyName),
	string(algorithms.EnvoyLocalName), string(algorithms.EnvoyGlobalName), string(algorithms.CloudflareName), string(algorithms.APIGatewayName),
	string(algorithms.SpringName), string(algorithms.TraefikName), string(algorithms.KongName)}

// String is the product's name as files and flags write it.
func (p Product) String() string {
	if p < 0 || int(p) >= len(productNames) {
		return fmt.Sprintf("Product(%d)", int(p))
	}
	return productNames[p]
}

// ProductNames are the names ParseProduct reads.
func ProductNames() []string { return productNames[1:] }

// Limiting says what in a configuration of the product limits requests, for
// a message about one that limits none.
func (p Product) Limiting() string {
	switch p {
	case Nginx:
		return "limit_req in a server or location"
	case HAProxy:
		return "http-request deny on http_req_rate"
	case EnvoyLocal:
		return "LocalRateLimit with a token_bucket or descriptors and filter_enabled above 0%"
	case EnvoyGlobal:
		return "descriptor with a rate_limit of requests_per_unit above 0"
	case Cloudflare:
		return "rule with a ratelimit"
	case APIGateway:
		return "throttle with a rateLimit"
	case Spring:
		return "route with a RequestRateLimiter filter"
	case Traefik:
		return "rateLimit middleware with an average above 0"
	case Kong:
		return "rate-limiting plugin with a second, minute, hour or day limit"
	}
	return "limit"
}

// ParseProduct reads a product's name.
func ParseProduct(name string) (Product, error) {
	for i, n := range productNames[1:] {
		if strings.EqualFold(name, n) {
			return Product(i + 1), nil
		}
	}
	return Unknown, fmt.Errorf("unknown product %q; use %s", name, strings.Join(ProductNames(), " or "))
}

// Place is a line of a configuration file.
type Place struct {
	File string
	Line int // from 1; 0 when the whole file is meant
}

// String is file:line (only file when Line is 0), the file's name made
// printable (an included file's name is the configuration's text).
func (p Place) String() string {
	if p.Line <= 0 {
		return printable.String(p.File)
	}
	return fmt.Sprintf("%s:%d", printable.String(p.File), p.Line)
}

// Warning is something a configuration does that changes which requests are
// limited, or how, and that ratelab does not model; or a fact about the file a
// reader should know (a zone no limit uses). It is shown, never an error.
type Warning struct {
	Place Place
	Text  string
}

// String is "file:line: text".
func (w Warning) String() string { return w.Place.String() + ": " + w.Text }

// Warningf makes a Warning at place. Its text quotes the configuration, which
// may hold what a terminal acts on (escape sequences, bidi controls): it is
// made printable here, where every reader's notes are made.
func Warningf(place Place, format string, args ...any) Warning {
	return Warning{Place: place, Text: printable.String(fmt.Sprintf(format, args...))}
}

// Error is a configuration the product itself would refuse (nginx -t, haproxy
// -c), or one ratelab cannot read: its place, what is wrong and the fix.
type Error struct {
	Place Place
	Text  string
}

func (e *Error) Error() string { return e.Place.String() + ": " + e.Text }

// Errorf makes an *Error at place, its text made printable (it quotes the
// configuration, as a Warning does).
func Errorf(place Place, format string, args ...any) *Error {
	return &Error{Place: place, Text: printable.String(fmt.Sprintf(format, args...))}
}

// Config is what a product's configuration says about limiting requests.
type Config struct {
	Product Product
	File    string
	// Lanes are the contexts that limit requests, in the file's order.
	Lanes []Lane
	// Warnings are what the file does that ratelab does not model, in the
	// file's order (included files where they are included).
	Warnings []Warning
}

// Lane is one context that limits requests — an nginx server or location, a
// HAProxy frontend, listen or backend section — and the limits a request there
// is held to, in the order the product applies them.
type Lane struct {
	// Name says where it is: "server example.com location /api/",
	// "frontend fe". Names are unique within a Config.
	Name string
	// Place is where the context opens.
	Place Place
	// Applies lists the contexts whose requests these limits hold (nginx: the
	// servers and locations that inherit them, this one first when it handles
	// requests itself); empty for HAProxy, where it is the section itself.
	Applies []string
	Limits  []Limit
}

// Limit is one limit of a lane: where it is written, what identifies a client
// for it, and its parameters in the product's terms.
type Limit struct {
	Place Place
	Key   Key
	// Params are the limit's parameters in its product's terms: the
	// product's own type (*NginxLimit, *HAProxyLimit…), which only the
	// product's code asserts.
	Params Params
}

// Params are a limit's parameters in its product's terms. String writes them
// as the product's file says them ("zone=perip rate=10r/s burst=20 nodelay
// status=429"), to describe a lane.
type Params interface {
	String() string
}

// SpringLimit is a RequestRateLimiter's RedisRateLimiter: replenishRate
// tokens a second, burstCapacity at most, requestedTokens a request.
type SpringLimit struct {
	Route                                         string
	ReplenishRate, BurstCapacity, RequestedTokens int64
	// Status is the filter's statusCode, a refusal's status; 429 by default.
	Status int
}

// TraefikLimit is a rateLimit middleware: average requests per period, burst.
type TraefikLimit struct {
	Middleware string
	Average    int64
	Period     time.Duration
	Burst      int64
	// Redis is the redis option: the buckets in Redis (v3.4+), shared by the
	// instances, each on its own clock.
	Redis bool
}

// KongLimit is a rate-limiting plugin: its limits per window (second to
// year; 0 unset), its policy and error_code.
type KongLimit struct {
	Plugin  string
	Windows [6]int64
	Policy  string // local, cluster or redis
	Status  int    // error_code; 429 by default
	// HideClientHeaders is hide_client_headers: no rate-limit header sent.
	HideClientHeaders bool
}

// EnvoyLocalLimit is one token bucket of Envoy's local rate limit filter:
// the filter's token_bucket (Descriptor empty) or a descriptor's.
type EnvoyLocalLimit struct {
	// Descriptor is the descriptor's entries, "key=value" joined by ", "
	// (a value "" is every value, a bucket each); empty for the default.
	Descriptor    string
	MaxTokens     int64
	TokensPerFill int64
	FillInterval  time.Duration
}

// rate is the bucket's fill rate, in tokens a second.
func (l *EnvoyLocalLimit) rate() float64 { return float64(l.TokensPerFill) / l.FillInterval.Seconds() }

// EnvoyGlobalLimit is one rate_limit of the rate limit service's
// configuration: its domain, the descriptor path to it, requests_per_unit a
// unit (Period its divider), and shadow_mode.
type EnvoyGlobalLimit struct {
	Domain          string
	Descriptor      string // "key=value" joined by " / ", outermost first
	Unit            string
	Period          time.Duration
	RequestsPerUnit int64
	ShadowMode      bool
}

// CloudflareLimit is one rate limiting rule: requests_per_period per period
// for each value of its characteristics, the action and the mitigation
// timeout.
type CloudflareLimit struct {
	Rule              string // its description, ref or id
	Period            time.Duration
	RequestsPerPeriod int64
	MitigationTimeout time.Duration
	Action            string
	Status            int // response.status_code; 429 by default
	Characteristics   []string
}

// APIGatewayLimit is a throttle of API Gateway (rateLimit requests a second,
// burstLimit the bucket) and a usage plan's quota.
type APIGatewayLimit struct {
	Scope string // "usage plan NAME", "stage NAME", "method /path/GET"
	// RateMilli is rateLimit in thousandths of a request a second.
	RateMilli   int64
	Burst       int64
	QuotaLimit  int64
	QuotaPeriod string // DAY, WEEK or MONTH; "" without a quota
	QuotaOffset int64
}

// Key is what identifies a client for a limit: the product's expression, and
// the request log's fields that stand for it.
type Key struct {
	// Expr is the product's key as written: "$binary_remote_addr", "src",
	// "req.hdr(x-api-key)".
	Expr string
	// Trace names the fields of a request log that identify the same client,
	// in ratelab's trace key syntax (traces.Options.Key): "ip", "user",
	// "path", "method", or several joined by "+". Empty when every request
	// shares one key (Shared) or when no field stands for the expression
	// (Mapped false).
	Trace string
	// Shared says every request has the same key: the limit holds all of them
	// together ($server_name, a constant).
	Shared bool
	// Mapped says Trace or Shared stands for Expr. When false, a Warning at
	// the key's place says so, and a lane keeps the trace's own key.
	Mapped bool
	// Note says how the log's fields differ from the product's key, when they
	// do (a header the log does not have, the query string); empty when they
	// are the same.
	Note string
}

// Options say how to read a configuration file.
type Options struct {
	// Product is the file's product; Unknown tells it from the content.
	Product Product
	// Dir is the directory relative include paths are read from (nginx reads
	// them from the main file's directory); empty: the main file's.
	Dir string
	// ReadFile reads an included file; nil reads the file system.
	ReadFile func(name string) ([]byte, error)
	// Glob lists the files an include pattern matches; nil globs the file
	// system.
	Glob func(pattern string) ([]string, error)
}

func (o Options) readFile(name string) ([]byte, error) {
	if o.ReadFile != nil {
		return o.ReadFile(name)
	}
	return ReadLimited(name)
}

// ReadLimited reads the file at path, refusing one larger than MaxFileSize
// after reading at most one byte more: /dev/zero, or a log named by mistake,
// is an error at once, not a read until memory runs out.
func ReadLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s is larger than %d MiB, more than a configuration holds; is it the right file?", path, MaxFileSize>>20)
	}
	return data, nil
}

func (o Options) glob(pattern string) ([]string, error) {
	if o.Glob != nil {
		return o.Glob(pattern)
	}
	return filepath.Glob(pattern)
}

// MaxFileSize is the most a configuration file, or one it includes, may hold.
const MaxFileSize = 16 << 20

// ReadFile reads the configuration at path (see Read).
func ReadFile(path string, o Options) (*Config, error) {
	data, err := ReadLimited(path)
	if err != nil {
		return nil, err
	}
	return Read(path, data, o)
}

// Read reads a product's configuration, named name, from data: nginx or
// HAProxy as o.Product says, or as the content tells (Detect). A file the
// product would refuse is an *Error naming file:line and the fix.
func Read(name string, data []byte, o Options) (*Config, error) {
	if len(data) > MaxFileSize {
		return nil, Errorf(Place{File: name}, "the file is %d bytes; ratelab reads configurations up to %d", len(data), MaxFileSize)
	}
	data, marked := TrimBOM(data)
	p := o.Product
	if p == Unknown {
		var ok bool
		if p, ok = Detect(data); !ok {
			return nil, Errorf(Place{File: name}, "%s; say which with the product (%s)", NotDetected, strings.Join(ProductNames(), " or "))
		}
	}
	var cfg *Config
	var err error
	switch p {
	case Nginx:
		cfg, err = readNginx(name, data, o)
	case HAProxy:
		cfg, err = readHAProxy(name, data)
	case EnvoyLocal:
		cfg, err = readEnvoyLocal(name, data)
	case EnvoyGlobal:
		cfg, err = readEnvoyGlobal(name, data)
	case Cloudflare:
		cfg, err = readCloudflare(name, data)
	case APIGateway:
		cfg, err = readAPIGateway(name, data)
	case Spring:
		cfg, err = readSpring(name, data)
	case Traefik:
		cfg, err = readTraefik(name, data)
	case Kong:
		cfg, err = readKong(name, data)
	default:
		return nil, fmt.Errorf("unknown product %v", p)
	}
	if err != nil {
		return nil, err
	}
	if marked {
		if note, ok := bomNote(p, name); ok {
			cfg.Warnings = append([]Warning{note}, cfg.Warnings...)
		}
	}
	// a lane's name is the configuration's text (a server_name, a section's,
	// a route's id): made printable here, for every reader (its notes and
	// errors are, where they are made)
	for i, l := range cfg.Lanes {
		cfg.Lanes[i].Name = printable.String(l.Name)
		for j, a := range l.Applies {
			l.Applies[j] = printable.String(a)
		}
	}
	return cfg, nil
}

// TrimBOM is data without the UTF-8 byte-order mark (U+FEFF) some editors
// write first (Notepad, Excel), and whether it had one: every reader reads a
// file as the same file without it (Read, Detect and nginx's includes call
// this, the one place that takes it off). A YAML, JSON or TOML reader takes
// the mark as a mark; nginx and HAProxy do not (bomNote).
func TrimBOM(data []byte) ([]byte, bool) {
	if rest, ok := bytes.CutPrefix(data, []byte("\uFEFF")); ok {
		return rest, true
	}
	return data, false
}

// bomNote is the note for a file of p's that began with a byte-order mark,
// when p refuses one: nginx and HAProxy read the mark as part of the file's
// first word (src/core/ngx_conf_file.c and src/cfgparse.c have no case for
// it; nginx 1.22 -t says unknown directive "\ufeffevents", HAProxy 2.6 -c
// unknown keyword '\ufeffglobal' out of section). ratelab reads the file
// without it, as the file was surely meant.
func bomNote(p Product, file string) (Warning, bool) {
	var says string
	switch p {
	case Nginx:
		says = "unknown directive, the mark taken as part of the first directive's name"
	case HAProxy:
		says = "unknown keyword out of section, the mark taken as part of the first keyword"
	default:
		return Warning{}, false
	}
	return Warningf(Place{File: file, Line: 1}, "the file begins with a UTF-8 byte-order mark, which %s refuses (%s); ratelab reads the file without it: save it as UTF-8 without a byte-order mark", p, says), true
}

// NotDetected says what Detect looks for, for a message when it finds none.
const NotDetected = "not a configuration ratelab tells by its content: an nginx.conf (directives ending in ; and blocks in { }), a haproxy.cfg (sections: global, defaults, frontend, backend, listen), Envoy YAML with a LocalRateLimit typed_config, the rate limit service's YAML (domain and descriptors), a Cloudflare rule's JSON (requests_per_period) , an API Gateway usage plan's or stage's JSON (throttle, rateLimit, burstLimit), a Spring application.yml with RequestRateLimiter, Traefik's YAML or TOML with a rateLimit middleware or Kong's declarative kong.yml (_format_version)"

// Detect tells a configuration's product by its content: Envoy's YAML by the
// @type of the local rate limit filter's typed_config; the rate limit
// service's by its top-level domain: and descriptors:; a JSON document (it
// opens with { or [) by its fields — Cloudflare's requests_per_period, API
// Gateway's throttle, rateLimit or burstLimit; HAProxy's sections start at
// the beginning of a line with a section keyword and hold no braces or
// semicolons at the ends of lines; nginx's directives end in ; and open blocks
// with {. False when none stands out (a file of another format: say which
// with the product).
func Detect(data []byte) (Product, bool) {
	data, _ = TrimBOM(data)
	if p, ok := detectStructured(data); ok {
		return p, true
	}
	var ngx, hap int
	for line := range bytes.Lines(data) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		word := t
		if i := bytes.IndexAny(t, " \t"); i >= 0 {
			word = t[:i]
		}
		switch string(word) {
		case "frontend", "backend", "listen", "defaults", "global", "peers", "userlist", "resolvers":
			if line[0] != ' ' && line[0] != '\t' && !bytes.ContainsAny(t, "{;") {
				hap += 3
				continue
			}
		case "bind", "stick-table", "http-request", "tcp-request", "default_backend", "use_backend", "acl", "mode", "timeout", "maxconn", "server":
			if !bytes.HasSuffix(t, []byte(";")) && !bytes.HasSuffix(t, []byte("{")) {
				hap++
				continue
			}
		}
		// a directive: a name of lowercase letters, digits and _, its
		// words ended by ; or {
		if last := t[len(t)-1]; (last == ';' || last == '{') && isDirectiveName(word) {
			ngx++
		}
	}
	// nginx's blocks and limit_req directives wherever they stand, for a file
	// that writes several on a line ("http { server { location / { … } } }"),
	// which the line ends above do not see; HAProxy writes none of these
	ngx += 2 * len(nginxBlocks.FindAllIndex(data, -1))
	switch {
	case hap > ngx && hap >= 3:
		return HAProxy, true
	case ngx > hap && ngx >= 1:
		return Nginx, true
	}
	return Unknown, false
}

// nginxBlocks finds nginx's own block openings and its limit_req directives.
var nginxBlocks = regexp.MustCompile(`(?m)(^|[;{}\s])((events|http|server|upstream|stream|limit_except)\s*\{|location\s+[^{};\n]+\{|limit_req(_zone)?\s+[^;\n]*;)`)

// isDirectiveName says w can be an nginx directive's name.
func isDirectiveName(w []byte) bool {
	w = bytes.TrimRight(w, ";{")
	if len(w) == 0 {
		return false
	}
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// detectStructured tells the YAML and JSON formats apart.
func detectStructured(data []byte) (Product, bool) {
	t := bytes.TrimSpace(data)
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		switch {
		case bytes.Contains(t, []byte(`"requests_per_period"`)) || bytes.Contains(t, []byte(`"mitigation_timeout"`)):
			return Cloudflare, true
		case bytes.Contains(t, []byte(`"throttle"`)) || bytes.Contains(t, []byte(`"rateLimit"`)) || bytes.Contains(t, []byte(`"burstLimit"`)) ||
			bytes.Contains(t, []byte(`"throttlingRateLimit"`)) || bytes.Contains(t, []byte(`"methodSettings"`)):
			return APIGateway, true
		}
	}
	if bytes.Contains(data, []byte("envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit")) {
		return EnvoyLocal, true
	}
	if bytes.Contains(data, []byte("RequestRateLimiter")) {
		return Spring, true
	}
	if bytes.Contains(data, []byte("rateLimit")) && (bytes.Contains(data, []byte("middlewares:")) || bytes.Contains(data, []byte("[http.middlewares"))) {
		return Traefik, true
	}
	if bytes.Contains(data, []byte("_format_version")) || bytes.Contains(data, []byte("name: rate-limiting")) {
		return Kong, true
	}
	var domain, descriptors bool
	for line := range bytes.Lines(data) {
		domain = domain || bytes.HasPrefix(line, []byte("domain:"))
		descriptors = descriptors || bytes.HasPrefix(line, []byte("descriptors:"))
	}
	if domain && descriptors {
		return EnvoyGlobal, true
	}
	return Unknown, false
}

// AddLanes reads each item into a lane with read and adds it to c, in order: an
// item that limits nothing (nil, a Warning says why) adds none, and a name
// already taken gets the lane's line ("… line 12"). The first error stops it.
func AddLanes[T any](c *Config, items []T, read func(int, T) (*Lane, error)) error {
	names := map[string]bool{}
	for _, l := range c.Lanes {
		names[l.Name] = true
	}
	for i, item := range items {
		lane, err := read(i, item)
		if err != nil {
			return err
		}
		if lane == nil {
			continue
		}
		if names[lane.Name] {
			lane.Name = fmt.Sprintf("%s line %d", lane.Name, lane.Place.Line)
		}
		names[lane.Name] = true
		c.Lanes = append(c.Lanes, *lane)
	}
	return nil
}

// String is l as a lane's description: "replenish=10 burst=20 requested=1".
func (l *SpringLimit) String() string {
	s := fmt.Sprintf("replenish=%d burst=%d requested=%d", l.ReplenishRate, l.BurstCapacity, l.RequestedTokens)
	if l.Status != 429 {
		s += fmt.Sprintf(" status=%d", l.Status)
	}
	return s
}

// String is l as a lane's description: "average=100/1s burst=50".
func (l *TraefikLimit) String() string {
	s := fmt.Sprintf("average=%d/%s burst=%d", l.Average, l.Period, l.Burst)
	if l.Redis {
		s += " redis"
	}
	return s
}

// String is l as a lane's description: "minute=6 policy=local status=429".
func (l *KongLimit) String() string {
	var b strings.Builder
	for w, n := range l.Windows {
		if n > 0 {
			fmt.Fprintf(&b, "%s=%d ", kongWindows[w], n)
		}
	}
	fmt.Fprintf(&b, "policy=%s status=%d", l.Policy, l.Status)
	return b.String()
}

// String is l as a lane's description: `descriptor="k=v" max=10 fill=10/1s`.
func (l *EnvoyLocalLimit) String() string {
	s := fmt.Sprintf("max=%d fill=%d/%s", l.MaxTokens, l.TokensPerFill, l.FillInterval)
	if l.Descriptor != "" {
		s = fmt.Sprintf("descriptor=%q ", l.Descriptor) + s
	}
	return s
}

// String is l as a lane's description: "5/second shadow".
func (l *EnvoyGlobalLimit) String() string {
	s := fmt.Sprintf("%d/%s", l.RequestsPerUnit, l.Unit)
	if l.ShadowMode {
		s += " shadow"
	}
	return s
}

// String is l as a lane's description: "10/1m0s timeout=1m0s block 429 by=cf.colo.id,ip.src".
func (l *CloudflareLimit) String() string {
	return fmt.Sprintf("%d/%s timeout=%s %s %d by=%s", l.RequestsPerPeriod, l.Period, l.MitigationTimeout, l.Action, l.Status, strings.Join(l.Characteristics, ","))
}

// String is l as a lane's description: "rate=10r/s burst=20 quota=5000/MONTH offset=0".
func (l *APIGatewayLimit) String() string {
	s := fmt.Sprintf("rate=%gr/s burst=%d", float64(l.RateMilli)/1000, l.Burst)
	if l.QuotaPeriod != "" {
		s += fmt.Sprintf(" quota=%d/%s offset=%d", l.QuotaLimit, l.QuotaPeriod, l.QuotaOffset)
	}
	return s
}
