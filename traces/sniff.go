package traces

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// A file whose format is not given is read as its content says (Sniff), and
// failing that as its name says (FormatOf): an access log saved as access.gz or
// apache_logs is still a Combined Log on its first line.

// FormatSource says how a reader's format was chosen.
type FormatSource int

const (
	// FormatGiven: the caller named it (--format, a scenario's format).
	FormatGiven FormatSource = iota
	// FormatByContent: the file's first lines are in it (and the name says
	// nothing, or something else).
	FormatByContent
	// FormatByName: the file's name says it, and its first lines agree or say
	// nothing clear.
	FormatByName
)

// String is the source as JSON writes it: "given", "content" or "name".
func (s FormatSource) String() string {
	return [...]string{"given", "content", "name"}[s]
}

// Detected is the format a reader reads its file in, and how it was chosen.
type Detected struct {
	Format Format
	// Layout describes it for a person: "Combined Log Format", "Common Log
	// Format", "JSON Lines", "CSV with the header time_ms,key".
	Layout string
	By     FormatSource
}

// String is "Combined Log Format (told by its content)", "JSON Lines" (as the
// name or the caller said).
func (d Detected) String() string {
	if d.By == FormatByContent {
		return d.Layout + " (told by its content)"
	}
	return d.Layout
}

// UnknownFormatError is a file whose format was not given and that neither its
// name nor its first lines tell. The caller says how to give it (a flag, or a
// scenario's setting).
type UnknownFormatError struct {
	Name  string
	First string // its first non-blank line, clipped
}

func (e *UnknownFormatError) Error() string {
	if e.First == "" {
		return fmt.Sprintf("cannot tell the format of %s: its name does not say it and it has no line to look at", e.Name)
	}
	return fmt.Sprintf("cannot tell the format of %s from its name or its first lines: %q is not a Common or Combined Log line, a JSON object or a CSV header", e.Name, e.First)
}

// sniffLines is how many non-blank lines Sniff looks at; sniffBytes the most it
// reads for them.
const (
	sniffLines = 16
	sniffBytes = 64 << 10
)

// Sniff tells a trace's format from its first lines (head: the start of the
// file, decompressed; a last line cut short is left out unless it is the only
// one): a Common or Combined Log when most lines read as one, JSON Lines when
// most are JSON objects, CSV when the first line is a header of names (none a
// number) and the next lines have as many fields. ok is false when none fits.
func Sniff(head []byte) (d Detected, ok bool) {
	lines := sampleLines(head)
	if len(lines) == 0 {
		return Detected{}, false
	}
	clf := &clfParser{parts: []clfPart{partIP}, lastUS: -1}
	var logs, combined, objects int
	for _, l := range lines {
		if _, why := clf.parseLine(l, nil); why == "" {
			logs++
			if isCombined(l) {
				combined++
			}
		}
		if l[0] == '{' && json.Valid(l) {
			objects++
		}
	}
	switch {
	case logs > 0 && 2*logs >= len(lines) && logs >= objects:
		layout := "Common Log Format"
		if 2*combined >= logs {
			layout = "Combined Log Format"
		}
		return Detected{Format: FormatCLF, Layout: layout, By: FormatByContent}, true
	case objects > 0 && 2*objects >= len(lines):
		return Detected{Format: FormatJSONL, Layout: "JSON Lines", By: FormatByContent}, true
	}
	if header, ok := csvHeader(lines); ok {
		return Detected{Format: FormatCSV, Layout: "CSV with the header " + clip([]byte(header), 60), By: FormatByContent}, true
	}
	return Detected{}, false
}

// sampleLines are head's first non-blank lines (up to sniffLines), without line
// endings.
func sampleLines(head []byte) [][]byte {
	var out [][]byte
	for len(head) > 0 && len(out) < sniffLines {
		i := bytes.IndexByte(head, '\n')
		if i < 0 {
			if len(out) > 0 && len(head) >= sniffBytes {
				break // cut short by the sample's size
			}
			i = len(head)
		}
		line := bytes.TrimRight(head[:i], "\r")
		if len(bytes.TrimSpace(line)) > 0 {
			out = append(out, line)
		}
		head = head[min(i+1, len(head)):]
	}
	return out
}

// isCombined says a log line that reads as the Common Log Format goes on with
// the Combined format's "referer" "user-agent".
func isCombined(line []byte) bool {
	// after the request's closing quote: status, bytes, then two quoted fields
	start := bytes.IndexByte(line, '"')
	if start < 0 {
		return false
	}
	end := closingQuote(line[start+1:])
	if end < 0 {
		return false
	}
	rest := bytes.Fields(line[start+1+end+1:])
	return len(rest) >= 4 && rest[2][0] == '"' && bytes.Count(line[start+1+end+1:], []byte{'"'}) >= 4
}

// csvHeader says the lines are CSV with a header row: at least two fields of
// names (none empty, none a number), the rows after it as wide.
func csvHeader(lines [][]byte) (string, bool) {
	if !bytes.Contains(lines[0], []byte{','}) {
		return "", false
	}
	r := csv.NewReader(bytes.NewReader(bytes.Join(lines, []byte{'\n'})))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil || len(header) < 2 {
		return "", false
	}
	for _, h := range header {
		h = strings.TrimSpace(h)
		if _, err := strconv.ParseFloat(h, 64); h == "" || err == nil {
			return "", false
		}
	}
	for {
		rec, err := r.Read()
		if err != nil {
			break
		}
		if len(rec) != len(header) {
			return "", false
		}
	}
	return strings.Join(header, ","), true
}
