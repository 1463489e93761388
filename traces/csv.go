package traces

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// csvParser reads CSV with a header row: the time, key and cost are the columns
// Options name (by default time_ms or time, key, and cost when there is one).
// ratelab's own trace CSV, time_ms,key[,cost] with time_ms in milliseconds from
// the start, is the default case.
type csvParser struct {
	r     *Reader
	csv   *csv.Reader
	names fieldNames
	time  int
	cost  int // -1: every request costs 1
	key   []int
	buf   []byte
	width int
	// detail are the columns of a Detail's method, path, status and agent,
	// -1 for one the header lacks; nil unless details are read
	detail []int
}

func newCSV(r *Reader, br *bufio.Reader, o Options) (*csvParser, error) {
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("the file is empty; want a header row naming the columns, like time_ms,key[,cost]")
	}
	if err != nil {
		return nil, csvError(err)
	}
	header = slices.Clone(header)
	r.header = csvLine(header)
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	timeDefault := "time"
	if slices.Contains(header, "time_ms") {
		timeDefault = "time_ms"
	}
	p := &csvParser{r: r, csv: cr, names: namedFields(o, timeDefault), cost: -1, width: len(header)}
	columns := strings.Join(header, ",")
	find := func(name, what, setting string) (int, error) {
		i := slices.Index(header, name)
		if i < 0 {
			return 0, &lineProblem{1, fmt.Sprintf("the header (%s) has no column %q for the %s; set %s to one of its columns", columns, name, what, setting)}
		}
		return i, nil
	}
	if p.time, err = find(p.names.time, "time", "time_field"); err != nil {
		return nil, err
	}
	for _, k := range p.names.key {
		i, err := find(k, "key", "key")
		if err != nil {
			return nil, err
		}
		p.key = append(p.key, i)
	}
	if o.details() {
		for _, names := range [][]string{detailFields.method, detailFields.path, detailFields.status, detailFields.agent} {
			col := -1
			for _, n := range names {
				if i := slices.Index(header, n); i >= 0 && col < 0 {
					col = i
				}
			}
			p.detail = append(p.detail, col)
		}
	}
	if p.names.noCost {
		// every request costs 1
	} else if i := slices.Index(header, p.names.cost); i >= 0 {
		p.cost = i
	} else if p.names.costSet {
		_, err := find(p.names.cost, "cost", "cost_field")
		return nil, err
	}
	return p, nil
}

func (p *csvParser) dated() bool { return p.names.timeFormat != TimeOffsetMS }

func (p *csvParser) next() (record, error) {
	for {
		rec, err := p.csv.Read()
		if err == io.EOF {
			return record{}, io.EOF
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return record{}, &lineProblem{pe.StartLine, pe.Err.Error()}
		}
		if err != nil {
			return record{}, err
		}
		line, _ := p.csv.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != p.width {
			return record{}, &lineProblem{line, fmt.Sprintf("%d fields; the header has %d", len(rec), p.width)}
		}
		out := record{line: line, cost: 1}
		var why string
		if out.at, out.res, why = parseTime(rec[p.time], p.names.timeFormat, p.names.time); why != "" {
			return record{}, &lineProblem{line, why}
		}
		p.buf = p.buf[:0]
		for i, k := range p.key {
			v := strings.TrimSpace(rec[k])
			if v == "" {
				return record{}, &lineProblem{line, fmt.Sprintf("%s is empty", p.names.key[i])}
			}
			p.buf = appendKeyValue(p.buf, i, len(p.key) > 1, v) // any column may hold a space
		}
		out.key = p.r.intern(p.buf)
		if p.detail != nil {
			col := func(i int) string {
				if p.detail[i] < 0 {
					return ""
				}
				return strings.TrimSpace(rec[p.detail[i]])
			}
			out.detail = Detail{Method: p.r.internBytes([]byte(col(0))), Path: withoutQuery(col(1)), Agent: p.r.internBytes([]byte(col(3)))}
			out.detail.Status = statusOf(col(2))
		}
		if p.cost >= 0 {
			if out.cost, why = parseCost(rec[p.cost], p.names.cost); why != "" {
				return record{}, &lineProblem{line, why}
			}
		}
		if p.r.opts.Raw {
			out.raw = csvLine(rec)
		}
		return out, nil
	}
}

// csvError turns a csv.ParseError into a problem at its line.
func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &lineProblem{pe.Line, pe.Err.Error()}
	}
	return err
}

// csvLine is a record written back as one line of CSV, without its end.
func csvLine(rec []string) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(rec)
	w.Flush()
	return bytes.TrimRight(b.Bytes(), "\r\n")
}
