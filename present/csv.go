package present

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/sim"
)

// RequestContractColumns are the request CSV's first 13 columns, whose every
// byte stays as it was: new columns are only appended.
const RequestContractColumns = "time_ms,lane,algorithm,backend,client,node,key,request_id,attempt,cost,allowed,remaining,retry_after_ms"

// RequestFateColumns follow them: what became of the attempt (see sim.Row and sim/fate.go).
const RequestFateColumns = "decided_at_ms,admitted_at_ms,queue_delay_ms,outcome,latency_ms,wasted"

// RequestColumns is the request CSV's header (without --headers' columns): one
// row per decision.
const RequestColumns = RequestContractColumns + "," + RequestFateColumns

// RequestProductColumns follow the fate columns when a lane of the run is a
// product's (its algorithm has an algorithms.Info.Status): http_status, the
// status the product answers (a refusal's: the lane's deny_status or the
// product's default; a request it passes on: 200, the application's answer,
// whose fate the outcome column tells), and product_status, the word it logs
// (nginx's $limit_req_status). Both are empty on the other lanes' rows. A run
// with no product lane has neither column.
const RequestProductColumns = "http_status,product_status"

// RequestRuleColumns follow them (and the product columns): rule, the rule
// that refused the attempt, named as its product names it where the lane is a
// product's ("nginx.conf:14 limit_req zone=login"), else its limit, stage or
// window (sim.LaneConfig.RuleNames); and also_refusing, how many of the lane's
// other rules would have refused it too (see sim/rules.go). Both are empty for
// an accepted attempt and for a refusal no rule made (the store's on_error, a
// WATCH that kept losing).
const RequestRuleColumns = "rule,also_refusing"

// SeriesContractColumns are the series CSV's first 5 columns.
const SeriesContractColumns = "time_ms,lane,level,accepted,denied"

// SeriesColumns is the series CSV's header when no extra keys are watched: one
// row per tick per lane. Each key of sim.Config.WatchKeys adds a column
// "level:KEY" after these.
const SeriesColumns = SeriesContractColumns + ",offered,attempts,backend_errors,backend_queue,store_errors"

// RequestWriter writes decisions as the request CSV: time_ms with three decimals
// (the time the decision landed, true virtual time), the lane and its algorithm and
// backend, the client, its node and the key, request_id (client-n: the client's n-th
// logical request, the same request in every lane), attempt (from 1), cost, allowed
// (true/false), remaining (up to six decimals), and retry_after_ms (0 when allowed,
// inf when the request could never be accepted); then the attempt's fate:
// decided_at_ms (the deciding node's clock when the decision landed),
// admitted_at_ms and queue_delay_ms (empty when denied; admitted_at_ms empty too
// for a request that left a leaky queue before its turn), outcome (see sim.Outcome),
// latency_ms (from the logical request's first attempt to this attempt's answer;
// empty while in flight) and wasted (true/false). These times have six decimals,
// exact to the nanosecond, so every figure of the comparison can be recomputed
// from them. A run with a product lane adds RequestProductColumns after the
// fate columns.
type RequestWriter struct {
	w   *bufio.Writer
	cfg *sim.Config
	buf []byte
	// the cells of the last row written, which the next rows mostly repeat: the
	// lanes' rows of one request come together, at one time, decided at one
	// time on the node's clock
	at, decided cell
	request     cell // the number after the client in request_id
	// the fixed fields, quoted as CSV needs, by index
	lanes   [][]byte // "lane,algorithm,backend"
	clients [][]byte // "client,node"
	// request_id's cell is the client's name, "-" and the request's number:
	// ids is what comes before the number, idsEnd after it (a closing quote
	// when the cell needs quoting, as CSVField(name+"-"+n) quotes it)
	ids, idsEnd [][]byte
	keys        [][]byte
	// status is each lane's product answer (algorithms.Info.Status, nil for a
	// lane that is not a product's), and options its options; product says some
	// lane has one, so the product columns are written.
	status  []func(algorithms.Decision, algorithms.Options) (int, string)
	options []algorithms.Options
	product bool
	// rules are each lane's rules' names, as CSV cells
	rules [][][]byte
	// headerCols, with headers, are the columns of the response headers
	// (headers.go), appended after the others.
	headerCols  []string
	headerCells []string
}

// NewRequestWriter writes the header to w and returns the writer for cfg's rows.
func NewRequestWriter(w io.Writer, cfg *sim.Config) (*RequestWriter, error) {
	return newRequestWriter(w, cfg, nil)
}

func newRequestWriter(w io.Writer, cfg *sim.Config, headerCols []string) (*RequestWriter, error) {
	rw := &RequestWriter{w: bufio.NewWriterSize(w, 64<<10), cfg: cfg, headerCols: headerCols}
	for _, l := range cfg.Lanes {
		rw.lanes = append(rw.lanes, []byte(CSVField(l.Name)+","+CSVField(string(l.Algorithm))+","+CSVField(l.Backend.String())))
		info, _ := algorithms.Lookup(l.Algorithm)
		rw.status, rw.options = append(rw.status, info.Status), append(rw.options, l.Options)
		rw.product = rw.product || info.Status != nil
		var rules [][]byte
		for _, name := range l.RuleNames(cfg) {
			rules = append(rules, []byte(CSVField(name)))
		}
		rw.rules = append(rw.rules, rules)
	}
	for _, c := range cfg.Clients {
		rw.clients = append(rw.clients, []byte(CSVField(c.Name)+","+CSVField(cfg.Nodes[c.Node].Name)))
		id := c.Name + "-0" // quoted or not whatever the number (it ends the cell)
		if quoted := CSVField(id); quoted != id {
			rw.ids, rw.idsEnd = append(rw.ids, []byte(strings.TrimSuffix(quoted, `0"`))), append(rw.idsEnd, []byte(`"`))
		} else {
			rw.ids, rw.idsEnd = append(rw.ids, []byte(c.Name+"-")), append(rw.idsEnd, nil)
		}
	}
	rw.keys = make([][]byte, len(cfg.Keys))
	header := RequestColumns
	if rw.product {
		header += "," + RequestProductColumns
	}
	header += "," + RequestRuleColumns
	for _, c := range headerCols {
		header += "," + CSVField(c)
	}
	_, err := rw.w.WriteString(header + "\n")
	return rw, err
}

// cell is a number and its text, as formatted last.
type cell struct {
	v    int64
	text []byte
	set  bool
}

// appendCell appends v's text, formatting it only when it is not the last
// value c had.
func appendCell(b []byte, c *cell, v int64, format func([]byte, int64) []byte) []byte {
	if !c.set || c.v != v {
		c.v, c.text, c.set = v, format(c.text[:0], v), true
	}
	return append(b, c.text...)
}

func formatMillis(b []byte, v int64) []byte      { return appendMillis(b, time.Duration(v)) }
func formatExactMillis(b []byte, v int64) []byte { return appendExactMillis(b, time.Duration(v)) }
func formatInt(b []byte, v int64) []byte         { return strconv.AppendInt(b, v, 10) }

// Write appends rows: formatted into one buffer, written at once.
func (rw *RequestWriter) Write(rows []sim.Row) error {
	b := rw.buf[:0]
	for i := range rows {
		b = rw.appendRow(b, &rows[i])
	}
	rw.buf = b
	_, err := rw.w.Write(b)
	return err
}

// appendRow appends row's line.
func (rw *RequestWriter) appendRow(b []byte, row *sim.Row) []byte {
	b = appendCell(b, &rw.at, int64(row.At), formatMillis)
	b = append(b, ',')
	b = append(b, rw.lanes[row.Lane]...)
	b = append(b, ',')
	b = append(b, rw.clients[row.Client]...)
	b = append(b, ',')
	b = append(b, rw.key(row.Key)...)
	b = append(b, ',')
	b = append(b, rw.ids[row.Client]...)
	b = appendCell(b, &rw.request, row.Request, formatInt)
	b = append(b, rw.idsEnd[row.Client]...)
	b = append(b, ',')
	b = appendInt(b, int64(row.Attempt))
	b = append(b, ',')
	b = appendInt(b, row.Cost)
	if row.Allowed {
		b = append(b, ",true,"...)
	} else {
		b = append(b, ",false,"...)
	}
	b = appendDecimal(b, row.Remaining)
	b = append(b, ',')
	switch row.RetryAfter {
	case algorithms.Forever:
		b = append(b, "inf"...)
	case 0: // every acceptance
		b = append(b, "0.000"...)
	default:
		b = appendMillis(b, row.RetryAfter)
	}
	b = rw.appendFate(b, row)
	if rw.product {
		b = rw.appendProduct(b, row)
	}
	b = rw.appendRule(b, row)
	if rw.headerCols != nil {
		b = rw.appendHeaders(b, row)
	}
	return append(b, '\n')
}

// appendFate appends the fate columns of row (RequestFateColumns).
func (rw *RequestWriter) appendFate(b []byte, row *sim.Row) []byte {
	b = append(b, ',')
	b = appendCell(b, &rw.decided, int64(row.DecidedAt), formatExactMillis)
	b = append(b, ',')
	if row.Allowed && row.AdmittedAt == row.DecidedAt { // most requests go ahead when decided
		b = append(b, rw.decided.text...)
	} else if row.Allowed && row.AdmittedAt != sim.NotAdmitted {
		b = appendExactMillis(b, row.AdmittedAt)
	}
	b = append(b, ',')
	if row.Allowed {
		b = appendExactMillisOrZero(b, row.QueueDelay)
	}
	b = append(b, outcomeCells[min(int(row.Outcome), len(outcomeCells)-1)]...)
	if row.Latency >= 0 {
		b = appendExactMillisOrZero(b, row.Latency)
	}
	if row.Wasted {
		return append(b, ",true"...)
	}
	return append(b, ",false"...)
}

// outcomeCells are each sim.Outcome as its cell between two others, and last
// an unknown one's.
var outcomeCells = func() []string {
	var cells []string
	for o := sim.Outcome(0); o.String() != "unknown"; o++ {
		cells = append(cells, ","+o.String()+",")
	}
	return append(cells, ",unknown,")
}()

// appendExactMillisOrZero is appendExactMillis, with 0 (most queue delays and
// latencies without a backend) written from a constant.
func appendExactMillisOrZero(b []byte, d time.Duration) []byte {
	if d == 0 {
		return append(b, "0.000000"...)
	}
	return appendExactMillis(b, d)
}

// appendProduct appends the product columns of row (RequestProductColumns):
// its lane's product answer, or two empty cells.
func (rw *RequestWriter) appendProduct(b []byte, row *sim.Row) []byte {
	status := rw.status[row.Lane]
	if status == nil {
		return append(b, ',', ',')
	}
	code, word := status(ProductDecision(*row), rw.options[row.Lane])
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, ',')
	return append(b, word...)
}

// appendRule appends the rule columns of row (RequestRuleColumns).
func (rw *RequestWriter) appendRule(b []byte, row *sim.Row) []byte {
	b = append(b, ',')
	rules := rw.rules[row.Lane]
	if row.Decisive <= 0 || int(row.Decisive) > len(rules) {
		return append(b, ',')
	}
	b = append(b, rules[row.Decisive-1]...)
	b = append(b, ',')
	return strconv.AppendInt(b, int64(row.AlsoRefusing), 10)
}

// ProductStatus is what lane l's product answers for d, the HTTP status and the
// word it logs (algorithms.Info.Status), and false when l is not a product's.
func ProductStatus(l sim.LaneConfig, d algorithms.Decision) (code int, word string, ok bool) {
	info, _ := algorithms.Lookup(l.Algorithm)
	if info.Status == nil {
		return 0, "", false
	}
	code, word = info.Status(d, l.Options)
	return code, word, true
}

// ProductDecision is as much of row's decision as a product's answer reads
// (algorithms.Info.Status): allowed, the wait (the queue delay of an accepted
// request) and a dry run's shadow.
func ProductDecision(row sim.Row) algorithms.Decision {
	d := algorithms.Decision{Allowed: row.Allowed, Shadow: row.Shadow}
	if row.Allowed {
		d.Delay = row.QueueDelay
	}
	return d
}

// Flush writes out what is buffered.
func (rw *RequestWriter) Flush() error { return rw.w.Flush() }

func (rw *RequestWriter) key(i int) []byte {
	if rw.keys[i] == nil {
		rw.keys[i] = []byte(CSVField(rw.cfg.Keys[i].Name))
	}
	return rw.keys[i]
}

// SeriesWriter writes the series CSV: one row per tick per lane, time_ms the
// tick's end, level the watched key's level then, accepted and denied the
// decisions landed in the tick, offered the logical requests made in the tick,
// attempts the decisions asked for in it, backend_errors the accepted requests the backend
// failed in the tick, backend_queue the requests in its queue at the tick's end,
// store_errors the store's failures in the tick, then a column "level:KEY" per
// key of sim.Config.WatchKeys, its level at the tick's end (empty when the sample
// has none: WriteSeries, from the series a lane keeps). Rows come from
// sim.Run.OnSeries, ordered by time and then lane.
type SeriesWriter struct {
	w      *bufio.Writer
	names  []string
	levels int
	b      []byte
}

// NewSeriesWriter writes the header to w and returns the writer for cfg's lanes.
func NewSeriesWriter(w io.Writer, cfg *sim.Config) (*SeriesWriter, error) {
	sw := &SeriesWriter{w: bufio.NewWriterSize(w, 64<<10), levels: len(cfg.WatchKeys)}
	for _, l := range cfg.Lanes {
		sw.names = append(sw.names, CSVField(l.Name))
	}
	header := SeriesColumns
	for _, k := range cfg.WatchKeys {
		header += "," + CSVField("level:"+cfg.Keys[k].Name)
	}
	_, err := sw.w.WriteString(header + "\n")
	return sw, err
}

// Write appends lane's sample s.
func (sw *SeriesWriter) Write(lane int, s sim.Sample) error {
	b := appendMillis(sw.b[:0], s.At)
	b = append(b, ',')
	b = append(b, sw.names[lane]...)
	b = append(b, ',')
	b = appendDecimal(b, s.Level)
	b = append(b, ',')
	b = strconv.AppendInt(b, s.Accepted, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, s.Denied, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, s.Offered, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, s.Attempts, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, s.BackendErrors, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(s.BackendQueue), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, s.StoreErrors, 10)
	for i := range sw.levels {
		b = append(b, ',')
		if i < len(s.Levels) {
			b = appendDecimal(b, s.Levels[i])
		}
	}
	b = append(b, '\n')
	sw.b = b
	_, err := sw.w.Write(b)
	return err
}

// Flush writes out what is buffered.
func (sw *SeriesWriter) Flush() error { return sw.w.Flush() }

// WriteSeries writes the series the run's lanes kept as the series CSV, ordered
// by time and then lane: every tick of a run of up to MaxSeriesPoints ticks; a
// longer run's kept series is coarser, so write its CSV as it runs (OnSeries).
func WriteSeries(w io.Writer, run *sim.Run) error {
	sw, err := NewSeriesWriter(w, run.Config)
	if err != nil {
		return err
	}
	for t := 0; ; t++ {
		wrote := false
		for i, l := range run.Lanes {
			if s := l.Series(); t < len(s) {
				if err := sw.Write(i, s[t]); err != nil {
					return err
				}
				wrote = true
			}
		}
		if !wrote {
			break
		}
	}
	return sw.Flush()
}

// CSVField quotes s when CSV needs it to.
func CSVField(s string) string {
	if s == "" || !strings.ContainsAny(s, ",\"\r\n") && s[0] != ' ' && s[len(s)-1] != ' ' {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
