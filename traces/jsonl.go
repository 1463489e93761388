package traces

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// jsonlParser reads JSON Lines: one object per line, the time, key and cost in
// named fields (see Options). A key field may hold a string or a number.
type jsonlParser struct {
	r      *Reader
	lines  lineReader
	names  fieldNames
	fields map[string]json.RawMessage
	key    []byte
}

func newJSONL(r *Reader, br *bufio.Reader, o Options) (*jsonlParser, error) {
	return &jsonlParser{r: r, lines: lineReader{br: br}, names: namedFields(o, "time"), fields: map[string]json.RawMessage{}}, nil
}

func (p *jsonlParser) dated() bool { return p.names.timeFormat != TimeOffsetMS }

func (p *jsonlParser) next() (record, error) {
	for {
		line, err := p.lines.next()
		if err != nil {
			return record{}, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		rec, why := p.parseLine(line)
		if why != "" {
			return record{}, &lineProblem{p.lines.line, why}
		}
		rec.line = p.lines.line
		if p.r.opts.Raw {
			rec.raw = bytes.Clone(bytes.TrimRight(line, "\r\n"))
		}
		return rec, nil
	}
}

func (p *jsonlParser) parseLine(line []byte) (record, string) {
	clear(p.fields)
	if err := json.Unmarshal(line, &p.fields); err != nil {
		return record{}, fmt.Sprintf("not a JSON object: %v", err)
	}
	value := func(name string) (string, bool, string) {
		raw, ok := p.fields[name]
		if !ok || string(raw) == "null" {
			return "", false, ""
		}
		if len(raw) > 0 && raw[0] == '"' {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", false, fmt.Sprintf("field %q: %v", name, err)
			}
			return s, true, ""
		}
		if len(raw) > 0 && (raw[0] == '{' || raw[0] == '[') {
			return "", false, fmt.Sprintf("field %q is an object or array; want a string or a number", name)
		}
		return string(raw), true, ""
	}
	var rec record
	v, ok, why := value(p.names.time)
	if why != "" {
		return rec, why
	}
	if !ok {
		return rec, fmt.Sprintf("no field %q for the time (fields: %s); set time_field", p.names.time, fieldList(p.fields))
	}
	if rec.at, rec.res, why = parseTime(v, p.names.timeFormat, p.names.time); why != "" {
		return rec, why
	}
	p.key = p.key[:0]
	for i, k := range p.names.key {
		v, ok, why := value(k)
		if why != "" {
			return rec, why
		}
		if !ok || v == "" {
			return rec, fmt.Sprintf("no field %q for the key (fields: %s); set key to the field(s) that name a client", k, fieldList(p.fields))
		}
		p.key = appendKeyValue(p.key, i, len(p.names.key) > 1, v) // any field may hold a space
	}
	rec.key = p.r.intern(p.key)
	if p.r.opts.details() {
		first := func(names []string) string {
			for _, n := range names {
				if v, ok, _ := value(n); ok {
					return v
				}
			}
			return ""
		}
		rec.detail = Detail{Method: p.r.internBytes([]byte(first(detailFields.method))), Path: withoutQuery(first(detailFields.path)), Agent: p.r.internBytes([]byte(first(detailFields.agent)))}
		rec.detail.Status = statusOf(first(detailFields.status))
	}
	rec.cost = 1
	if p.names.noCost {
		return rec, ""
	}
	v, ok, why = value(p.names.cost)
	switch {
	case why != "":
		return rec, why
	case ok:
		if rec.cost, why = parseCost(v, p.names.cost); why != "" {
			return rec, why
		}
	}
	return rec, ""
}

// fieldList names an object's fields, sorted, for a message.
func fieldList(m map[string]json.RawMessage) string {
	var names []string
	for k := range m {
		names = append(names, k)
	}
	if len(names) == 0 {
		return "none"
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
