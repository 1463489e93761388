package traces

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// clfPart is one field of a Common/Combined Log line that can be part of a key.
type clfPart int

const (
	partIP clfPart = iota
	partIdent
	partUser
	partMethod
	partPath
	partAgent
)

var clfParts = map[string]clfPart{"ip": partIP, "host": partIP, "ident": partIdent, "user": partUser, "method": partMethod, "path": partPath, "agent": partAgent}

// clfPartNames name the parts in messages, in clfPart's order.
var clfPartNames = [...]string{"ip", "ident", "user", "method", "path", "agent"}

// clfParser reads the Common Log Format, `host ident authuser [time] "request"
// status bytes`, and the Combined one (which adds "referer" "user-agent"; the
// User-Agent is read for a key of agent and for Options.Details, which reads
// the status too). It is written by hand, without regular expressions, because it
// runs once per line of logs of millions of lines: it finds the fields by their
// separators, parses the time at its fixed positions, and builds the key in a
// reused buffer that interning turns into a string only for a key not seen
// before.
type clfParser struct {
	r     *Reader
	lines lineReader
	parts []clfPart
	key   []byte
	// details: read each line's Detail (Options.details); agentKey: the
	// User-Agent is part of the key. Else the line's tail is not read.
	details, agentKey bool
	// escape: the key has both user and agent, the parts that may hold a
	// space (see appendKeyValue)
	escape bool

	// the last timestamp's text and value, since consecutive lines usually
	// share their second
	lastStamp [26]byte
	lastUS    int64
}

func newCLF(r *Reader, br *bufio.Reader, o Options) (*clfParser, error) {
	p := &clfParser{r: r, lines: lineReader{br: br}, lastUS: -1, details: o.details()}
	for _, part := range o.keyParts() {
		c, ok := clfParts[part]
		if !ok {
			return nil, fmt.Errorf("key %q: a Common/Combined Log has no field %q; use ip, user, ident, method, path or agent (the Combined Log's User-Agent), or several joined by + (ip+agent)", o.Key, part)
		}
		p.parts = append(p.parts, c)
		p.agentKey = p.agentKey || c == partAgent
	}
	p.escape = slices.Contains(p.parts, partUser) && slices.Contains(p.parts, partAgent)
	if o.TimeField != "" || o.CostField != "" && o.CostField != NoCost {
		return nil, fmt.Errorf("time_field and cost_field are for JSON Lines and CSV; a Common/Combined Log's time is its [day/month/year:hour:minute:second zone] and every request costs 1")
	}
	return p, nil
}

func (p *clfParser) dated() bool { return true }

func (p *clfParser) next() (record, error) {
	for {
		line, err := p.lines.next()
		if err != nil {
			return record{}, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var d Detail
		at, why := p.parseLine(line, &d)
		if why != "" {
			return record{}, &lineProblem{p.lines.line, why}
		}
		rec := record{at: at, res: 1e6, key: p.r.intern(p.key), cost: 1, line: p.lines.line, detail: d}
		if p.r.opts.Raw {
			rec.raw = bytes.Clone(bytes.TrimRight(line, "\r\n"))
		}
		return rec, nil
	}
}

// parseLine reads one line into p.key (and d, when p.details) and returns its
// time in µs from the epoch, or why it could not.
func (p *clfParser) parseLine(line []byte, d *Detail) (int64, string) {
	var fields [6][]byte // ip, ident, user, method, path, agent
	i := bytes.IndexByte(line, ' ')
	if i <= 0 {
		return 0, "not a Common/Combined Log line: no space after the host"
	}
	fields[partIP] = line[:i]
	rest := line[i+1:]
	if i = bytes.IndexByte(rest, ' '); i < 0 {
		return 0, "not a Common/Combined Log line: no ident field"
	}
	fields[partIdent] = rest[:i]
	rest = rest[i+1:]
	open := bytes.IndexByte(rest, '[')
	if open < 1 || rest[open-1] != ' ' {
		return 0, "no [time] after the host, ident and user fields"
	}
	fields[partUser] = rest[:open-1]
	rest = rest[open+1:]
	if len(rest) < 27 || rest[26] != ']' {
		return 0, fmt.Sprintf("time %q is not [day/month/year:hour:minute:second zone], like [10/Oct/2000:13:55:36 -0700]", clip(rest, 28))
	}
	at, ok := p.stamp(rest[:26])
	if !ok {
		return 0, fmt.Sprintf("time [%s] is not day/month/year:hour:minute:second zone, like 10/Oct/2000:13:55:36 -0700", rest[:26])
	}
	rest = rest[27:]
	if len(rest) < 2 || rest[0] != ' ' || rest[1] != '"' {
		return 0, "no quoted \"request\" after the time"
	}
	req := rest[2:]
	end := closingQuote(req)
	if end < 0 {
		return 0, "the quoted request is not closed"
	}
	req = req[:end]
	if sp := bytes.IndexByte(req, ' '); sp > 0 {
		fields[partMethod] = req[:sp]
		path := req[sp+1:]
		if sp = bytes.IndexByte(path, ' '); sp >= 0 {
			path = path[:sp]
		}
		if q := bytes.IndexByte(path, '?'); q >= 0 {
			path = path[:q]
		}
		fields[partPath] = path
	}
	if p.details || p.agentKey {
		status, agent := combinedTail(rest[2+end+1:])
		fields[partAgent] = agent
		if p.details {
			d.Method, d.Path, d.Agent = p.r.internBytes(fields[partMethod]), string(fields[partPath]), p.r.internBytes(agent)
			d.Status = status
		}
	}
	p.key = p.key[:0]
	for j, part := range p.parts {
		v := fields[part]
		if len(v) == 0 {
			if part == partAgent {
				return 0, "the line has no User-Agent for the key (a Common Log has none: a key of agent needs the Combined Log)"
			}
			return 0, fmt.Sprintf("the request %q has no %s for the key", clip(req, 40), clfPartNames[part])
		}
		p.key = appendKeyValue(p.key, j, p.escape, v)
	}
	return at, ""
}

// combinedTail reads what follows the quoted request: ` status bytes` and, in
// the Combined Log, ` "referer" "user-agent"`. It returns the status (0 when
// it is not a number) and the User-Agent (nil when the line has none, or "-").
func combinedTail(b []byte) (int, []byte) {
	b = bytes.TrimLeft(b, " ")
	status := 0
	i := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9' && i < 4; i++ {
		status = status*10 + int(b[i]-'0')
	}
	if i == 0 || i > 3 || (i < len(b) && b[i] != ' ') {
		status = 0
	}
	var quoted [2][]byte
	for n := range quoted {
		q := bytes.IndexByte(b, '"')
		if q < 0 {
			return status, nil
		}
		b = b[q+1:]
		end := closingQuote(b)
		if end < 0 {
			return status, nil
		}
		quoted[n], b = b[:end], b[end+1:]
	}
	if agent := quoted[1]; len(agent) > 0 && string(agent) != "-" {
		return status, agent
	}
	return status, nil
}

// closingQuote is the index of the quote that ends a quoted field whose opening
// quote was just before b, skipping backslash escapes (Apache writes \" inside).
func closingQuote(b []byte) int {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// stamp parses "10/Oct/2000:13:55:36 -0700" into µs from the epoch.
func (p *clfParser) stamp(t []byte) (int64, bool) {
	if p.lastUS >= 0 && string(t) == string(p.lastStamp[:]) {
		return p.lastUS, true
	}
	if t[2] != '/' || t[6] != '/' || t[11] != ':' || t[14] != ':' || t[17] != ':' || t[20] != ' ' || (t[21] != '+' && t[21] != '-') {
		return 0, false
	}
	day, ok1 := digits(t[0:2])
	year, ok2 := digits(t[7:11])
	hour, ok3 := digits(t[12:14])
	minute, ok4 := digits(t[15:17])
	sec, ok5 := digits(t[18:20])
	zh, ok6 := digits(t[22:24])
	zm, ok7 := digits(t[24:26])
	month := monthOf(t[3:6])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || month == 0 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 60 || zh > 23 || zm > 59 {
		return 0, false
	}
	zone := (zh*60 + zm) * 60
	if t[21] == '-' {
		zone = -zone
	}
	if p.r != nil && !p.r.stats.ZoneKnown {
		p.r.stats.Zone, p.r.stats.ZoneKnown = int(zone), true
	}
	secs := daysFromCivil(year, month, day)*86400 + hour*3600 + minute*60 + sec - zone
	copy(p.lastStamp[:], t)
	p.lastUS = secs * 1e6
	return p.lastUS, true
}

// digits reads a run of ASCII digits.
func digits(b []byte) (int64, bool) {
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// monthOf is the month of an English three-letter abbreviation (as strftime's %b
// writes in the C locale), 1 to 12, or 0.
func monthOf(b []byte) int64 {
	switch string(b) {
	case "Jan":
		return 1
	case "Feb":
		return 2
	case "Mar":
		return 3
	case "Apr":
		return 4
	case "May":
		return 5
	case "Jun":
		return 6
	case "Jul":
		return 7
	case "Aug":
		return 8
	case "Sep":
		return 9
	case "Oct":
		return 10
	case "Nov":
		return 11
	case "Dec":
		return 12
	}
	return 0
}

// daysFromCivil is the number of days from 1970-01-01 to year-month-day in the
// proleptic Gregorian calendar (Howard Hinnant's days_from_civil, from "chrono-
// Compatible Low-Level Date Algorithms").
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// clip is b as a string of at most n bytes, for messages.
func clip(b []byte, n int) string {
	s := string(b)
	if len(s) > n {
		s = s[:n] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}
