package sim

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"time"

	"ratelab/algorithms"
)

// RequestColumns is the request CSV's header: one row per decision.
const RequestColumns = "time_ms,lane,algorithm,backend,client,node,key,request_id,attempt,cost,allowed,remaining,retry_after_ms"

// SeriesColumns is the series CSV's header: one row per tick per lane.
const SeriesColumns = "time_ms,lane,level,accepted,denied"

// RequestWriter writes decisions as the request CSV: time_ms with three decimals
// (the time the decision landed, true virtual time), the lane and its algorithm and
// backend, the client, its node and the key, request_id (client-n: the client's n-th
// logical request, the same request in every lane), attempt (from 1), cost, allowed
// (true/false), remaining (up to six decimals), and retry_after_ms (0 when allowed,
// inf when the request could never be accepted).
type RequestWriter struct {
	w   *bufio.Writer
	cfg *Config
	buf []byte
	// the fixed fields, quoted as CSV needs, by index
	lanes   [][]byte // "lane,algorithm,backend"
	clients [][]byte // "client,node"
	keys    [][]byte
	// headerCols, with headers, are the columns of the response headers
	// (headers.go), appended after the others.
	headerCols  []string
	headerCells []string
}

// NewRequestWriter writes the header to w and returns the writer for cfg's rows.
func NewRequestWriter(w io.Writer, cfg *Config) (*RequestWriter, error) {
	return newRequestWriter(w, cfg, nil)
}

func newRequestWriter(w io.Writer, cfg *Config, headerCols []string) (*RequestWriter, error) {
	rw := &RequestWriter{w: bufio.NewWriterSize(w, 64<<10), cfg: cfg, headerCols: headerCols}
	for _, l := range cfg.Lanes {
		rw.lanes = append(rw.lanes, []byte(csvField(l.Name)+","+csvField(l.Algorithm)+","+csvField(l.Backend.String())))
	}
	for _, c := range cfg.Clients {
		rw.clients = append(rw.clients, []byte(csvField(c.Name)+","+csvField(cfg.Nodes[c.Node].Name)))
	}
	rw.keys = make([][]byte, len(cfg.Keys))
	header := RequestColumns
	for _, c := range headerCols {
		header += "," + csvField(c)
	}
	_, err := rw.w.WriteString(header + "\n")
	return rw, err
}

// Write appends rows.
func (rw *RequestWriter) Write(rows []Row) error {
	for i := range rows {
		row := &rows[i]
		b := rw.buf[:0]
		b = appendMillis(b, row.At)
		b = append(b, ',')
		b = append(b, rw.lanes[row.Lane]...)
		b = append(b, ',')
		b = append(b, rw.clients[row.Client]...)
		b = append(b, ',')
		b = append(b, rw.key(row.Key)...)
		b = append(b, ',')
		b = append(b, rw.clients[row.Client][:len(csvField(rw.cfg.Clients[row.Client].Name))]...)
		b = append(b, '-')
		b = strconv.AppendInt(b, row.Request, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(row.Attempt), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, row.Cost, 10)
		b = append(b, ',')
		b = strconv.AppendBool(b, row.Allowed)
		b = append(b, ',')
		b = appendDecimal(b, row.Remaining)
		b = append(b, ',')
		if row.RetryAfter == algorithms.Forever {
			b = append(b, "inf"...)
		} else {
			b = appendMillis(b, row.RetryAfter)
		}
		if rw.headerCols != nil {
			b = rw.appendHeaders(b, row)
		}
		b = append(b, '\n')
		rw.buf = b
		if _, err := rw.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// Flush writes out what is buffered.
func (rw *RequestWriter) Flush() error { return rw.w.Flush() }

func (rw *RequestWriter) key(i int) []byte {
	if rw.keys[i] == nil {
		rw.keys[i] = []byte(csvField(rw.cfg.Keys[i].Name))
	}
	return rw.keys[i]
}

// SeriesWriter writes the series CSV: one row per tick per lane, time_ms the
// tick's end, level the watched key's level then, accepted and denied the
// decisions landed in the tick. Rows come from Run.OnSeries, ordered by time and
// then lane.
type SeriesWriter struct {
	w     *bufio.Writer
	names []string
	b     []byte
}

// NewSeriesWriter writes the header to w and returns the writer for cfg's lanes.
func NewSeriesWriter(w io.Writer, cfg *Config) (*SeriesWriter, error) {
	sw := &SeriesWriter{w: bufio.NewWriterSize(w, 64<<10)}
	for _, l := range cfg.Lanes {
		sw.names = append(sw.names, csvField(l.Name))
	}
	_, err := sw.w.WriteString(SeriesColumns + "\n")
	return sw, err
}

// Write appends lane's sample s.
func (sw *SeriesWriter) Write(lane int, s Sample) error {
	b := appendMillis(sw.b[:0], s.At)
	b = append(b, ',')
	b = append(b, sw.names[lane]...)
	b = append(b, ',')
	b = appendDecimal(b, s.Level)
	b = append(b, ',')
	b = strconv.AppendInt(b, s.Accepted, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, s.Denied, 10)
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
func WriteSeries(w io.Writer, run *Run) error {
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

// appendMillis appends d in milliseconds with exactly three decimals.
func appendMillis(b []byte, d time.Duration) []byte {
	us := int64(d / time.Microsecond)
	if us < 0 {
		b = append(b, '-')
		us = -us
	}
	b = strconv.AppendInt(b, us/1000, 10)
	frac := us % 1000
	return append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
}

// appendDecimal appends v with up to six decimals, trailing zeros trimmed.
func appendDecimal(b []byte, v float64) []byte {
	start := len(b)
	b = strconv.AppendFloat(b, v, 'f', 6, 64)
	for b[len(b)-1] == '0' {
		b = b[:len(b)-1]
	}
	if b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	if string(b[start:]) == "-0" {
		b = append(b[:start], '0')
	}
	return b
}

// csvField quotes s when CSV needs it to.
func csvField(s string) string {
	if s == "" || !strings.ContainsAny(s, ",\"\r\n") && s[0] != ' ' && s[len(s)-1] != ' ' {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
