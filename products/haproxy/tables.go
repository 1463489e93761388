package haproxy

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"ratelab/internal/suggest"
	"ratelab/products"
)

// stickTable is a stick table.
type stickTable struct {
	name    string
	place   products.Place
	typ     string
	size    int64
	expire  time.Duration
	nopurge bool
	peers   string
	stores  []string // data types, as written: http_req_rate(10s), conn_cur
	period  time.Duration
	hasRate bool
}

// readTables reads every stick table: a proxy's (named after the proxy) and a
// peers section's (peers/name).
func (r *reader) readTables() error {
	for _, s := range r.sections {
		for _, l := range s.lines {
			var t *stickTable
			var err error
			switch {
			case l.words[0] == "stick-table" && (s.kind == "frontend" || s.kind == "backend" || s.kind == "listen"):
				if prev, ok := r.tables[s.name]; ok {
					return products.Errorf(l.place, "only one stick-table per proxy; %s already has one at %s (declare another in a backend of its own)", s.name, prev.place)
				}
				t, err = parseStickTable(s.name, l, 1)
			case l.words[0] == "stick-table" && s.kind == "defaults":
				return products.Errorf(l.place, "'stick-table' is not allowed in a defaults section; declare it in a backend")
			case l.words[0] == "table" && s.kind == "peers" && len(l.words) > 1:
				t, err = parseStickTable(s.name+"/"+l.words[1], l, 2)
				if err == nil {
					t.peers = s.name
					r.warn(l.place, "table %s is replicated to the peers of section %s: ratelab models one HAProxy, whose table holds only its own requests", t.name, s.name)
				}
			default:
				continue
			}
			if err != nil {
				return err
			}
			r.tables[t.name] = t
		}
	}
	return nil
}

// dataTypes are the data types a stick table can store (HAProxy 2.6).
var dataTypes = []string{"server_id", "server_key", "server_name", "gpc", "gpc_rate", "gpc0", "gpc0_rate", "gpc1", "gpc1_rate", "gpt", "gpt0",
	"conn_cnt", "conn_cur", "conn_rate", "sess_cnt", "sess_rate", "http_req_cnt", "http_req_rate", "http_err_cnt", "http_err_rate",
	"http_fail_cnt", "http_fail_rate", "bytes_in_cnt", "bytes_in_rate", "bytes_out_cnt", "bytes_out_rate"}

// parseStickTable reads "stick-table type T [len N] size S [expire E]
// [nopurge] [peers P] [srvkey K] [store D,…]…" from word from on.
func parseStickTable(name string, l cfgLine, from int) (*stickTable, error) {
	t := &stickTable{name: name, place: l.place}
	w := l.words
	need := func(i int) (string, error) {
		if i+1 >= len(w) {
			return "", products.Errorf(l.place, "'%s' expects an argument", w[i])
		}
		return w[i+1], nil
	}
	sawSize := false
	for i := from; i < len(w); i++ {
		switch w[i] {
		case "type":
			v, err := need(i)
			if err != nil {
				return nil, err
			}
			if !slices.Contains([]string{"ip", "ipv6", "integer", "string", "binary"}, v) {
				return nil, products.Errorf(l.place, "stick-table: unknown type '%s'; use ip, ipv6, integer, string or binary", v)
			}
			t.typ = v
			i++
			if i+2 < len(w) && w[i+1] == "len" {
				i += 2
			}
		case "size":
			v, err := need(i)
			if err != nil {
				return nil, err
			}
			n, ok := products.ParseSize(v, "kmg", 1<<40)
			if !ok || n <= 0 {
				return nil, products.Errorf(l.place, "stick-table: invalid size '%s'; a number of entries, with k, m or g for 2^10, 2^20, 2^30", v)
			}
			t.size, sawSize = n, true
			i++
		case "expire":
			v, err := need(i)
			if err != nil {
				return nil, err
			}
			d, ok := parseTime(v)
			if !ok {
				return nil, products.Errorf(l.place, "stick-table: invalid expire '%s'; a time like 30s, 10m or 500 (milliseconds)", v)
			}
			t.expire = d
			i++
		case "nopurge":
			t.nopurge = true
		case "peers", "srvkey", "write-to":
			if _, err := need(i); err != nil {
				return nil, err
			}
			if w[i] == "peers" {
				t.peers = w[i+1]
			}
			i++
		case "store":
			v, err := need(i)
			if err != nil {
				return nil, err
			}
			_, types := splitConverters("x," + v)
			for _, d := range types {
				dname, args := fetchArgs(d)
				if !slices.Contains(dataTypes, dname) {
					return nil, products.Errorf(l.place, "stick-table: unknown data type '%s' in store", dname)
				}
				if dname == "http_req_rate" {
					if len(args) != 1 {
						return nil, products.Errorf(l.place, "stick-table: http_req_rate needs its period: store http_req_rate(10s)")
					}
					p, ok := parseTime(args[0])
					if !ok || p <= 0 {
						return nil, products.Errorf(l.place, "stick-table: invalid period '%s' in http_req_rate; a time like 10s", args[0])
					}
					t.period, t.hasRate = p, true
				}
				t.stores = append(t.stores, d)
			}
			i++
		default:
			return nil, products.Errorf(l.place, "stick-table: unknown argument '%s'; it takes type, size, expire, nopurge, peers, srvkey, store", w[i])
		}
	}
	switch {
	case t.typ == "":
		return nil, products.Errorf(l.place, "stick-table: missing type; write stick-table type ip size 100k expire 30s store http_req_rate(10s)")
	case !sawSize:
		return nil, products.Errorf(l.place, "stick-table: missing size; write size 100k (entries)")
	}
	return t, nil
}

// parseTime reads a time as HAProxy's parse_time_err does: a number with us, ms,
// s, m, h or d; milliseconds without a unit.
func parseTime(s string) (time.Duration, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i > 12 {
		return 0, false
	}
	n, _ := strconv.ParseInt(s[:i], 10, 64)
	unit := map[string]time.Duration{"": time.Millisecond, "us": time.Microsecond, "ms": time.Millisecond, "s": time.Second,
		"m": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	u, ok := unit[s[i:]]
	if !ok || n > int64(49*24*time.Hour/u) {
		return 0, false
	}
	return time.Duration(n) * u, true
}

// nearTable is a "did you mean" for a table's name.
func (r *reader) nearTable(name string) string {
	var names []string
	for n := range r.tables {
		names = append(names, n)
	}
	slices.Sort(names)
	if near := suggest.Nearest(name, names); near != "" {
		return "; did you mean " + near + "?"
	}
	if len(names) > 0 {
		return "; the tables are " + strings.Join(names, ", ")
	}
	return "; no section declares a stick-table"
}
