package serve

import (
	"bufio"
	"io"
	"strconv"

	"ratelab/algorithms"
	"ratelab/internal/printable"
	"ratelab/present"
)

// LogColumns are the columns of the decision log: the request CSV's first
// thirteen (present.RequestColumns, the same meaning: time_ms from the origin,
// backend "memory", client the remote address, node empty, attempt 1, cost 1),
// then status and word (the product's answer), delay_ms (how long an allowed
// request was held) and rule (what refused it).
var LogColumns = []string{"time_ms", "lane", "algorithm", "backend", "client", "node", "key", "request_id", "attempt", "cost", "allowed", "remaining", "retry_after_ms", "status", "word", "delay_ms", "rule"}

// Log writes each decision as a row of LogColumns. It is not safe for
// concurrent use: the server calls it under its lock (Options.OnDecision).
type Log struct {
	w     *bufio.Writer
	lanes []Lane
	buf   []byte
	err   error
}

// NewLog writes the header to w and returns the log of lanes' decisions.
func NewLog(w io.Writer, lanes []Lane) *Log {
	l := &Log{w: bufio.NewWriterSize(w, 64<<10), lanes: lanes}
	for i, c := range LogColumns {
		if i > 0 {
			l.buf = append(l.buf, ',')
		}
		l.buf = append(l.buf, c...)
	}
	l.buf = append(l.buf, '\n')
	_, l.err = l.w.Write(l.buf)
	return l
}

// Write appends a's row; the first error is kept (Err) and stops the rest.
func (l *Log) Write(a Arrival) {
	if l.err != nil {
		return
	}
	lane := l.lanes[a.Lane]
	alg := lane.Limits[0].Algorithm
	if a.Decisive >= 0 {
		alg = lane.Limits[a.Decisive].Algorithm
	}
	b := l.buf[:0]
	b = append(b, ms(a.At)...)
	b = append(b, ',')
	b = appendField(b, lane.Name)
	b = append(b, ',')
	b = append(b, alg...)
	b = append(b, ",memory,"...)
	b = appendField(b, a.Client)
	b = append(b, ",,"...)
	// a key may hold any byte: shown escaped, two keys the server kept apart
	// reading apart (the text `\x80`, the byte 0x80 and U+0080 are `\\x80`,
	// `\x80` and `\u0080`)
	b = appendField(b, printable.Exact(a.Key))
	b = append(b, ',')
	b = strconv.AppendInt(b, a.Seq, 10)
	b = append(b, ",1,1,"...)
	b = strconv.AppendBool(b, a.Allowed)
	b = append(b, ',')
	b = strconv.AppendFloat(b, a.Remaining, 'f', -1, 64)
	b = append(b, ',')
	if !a.Allowed && a.RetryAfter != algorithms.Forever {
		b = append(b, ms(a.RetryAfter)...)
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(a.Status), 10)
	b = append(b, ',')
	b = appendField(b, a.Word)
	b = append(b, ',')
	b = append(b, ms(a.Delay)...)
	b = append(b, ',')
	b = appendField(b, a.Rule)
	b = append(b, '\n')
	l.buf = b
	_, l.err = l.w.Write(b)
}

// Flush writes out what is buffered.
func (l *Log) Flush() error {
	if l.err != nil {
		return l.err
	}
	return l.w.Flush()
}

// appendField appends s as a CSV field, as the request CSV writes one.
func appendField(b []byte, s string) []byte { return append(b, present.CSVField(s)...) }
