package traces

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// A file is read a line at a time, each line bounded: see MaxLineBytes.

// MaxLineBytes is the longest line a trace may have: far more than any log
// line, and a bound on what one line holds in memory (a file of no newline,
// /dev/zero, would otherwise be read whole as one line).
const MaxLineBytes = 4 << 20

// lineGuard passes r's bytes on, and fails once a line runs past MaxLineBytes.
type lineGuard struct {
	r    io.Reader
	run  int // bytes since the last newline
	line int // newlines so far
}

// LineTooLongError says a trace's line is longer than MaxLineBytes.
type LineTooLongError struct{ Line int }

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("line %d is longer than %d MiB, more than any log line; is this a request log?", e.Line, MaxLineBytes>>20)
}

func (g *lineGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	chunk := p[:n]
	first := bytes.IndexByte(chunk, '\n')
	if first < 0 {
		first = n
	}
	if g.run+first > MaxLineBytes { // the line running into this chunk: none of it passes, so the line never ends
		return 0, &LineTooLongError{Line: g.line + 1}
	}
	if first < n { // (a chunk, at most bufio's buffer, holds no whole line that long)
		g.line += bytes.Count(chunk, []byte{'\n'})
		g.run = n - bytes.LastIndexByte(chunk, '\n') - 1
	} else {
		g.run += n
	}
	return n, err
}

// lineReader hands out a file's lines without their line ending, and counts them.
type lineReader struct {
	br   *bufio.Reader
	line int
	long []byte
}

// next returns the next line (valid until the following call), or io.EOF.
func (l *lineReader) next() ([]byte, error) {
	b, err := l.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		l.long = append(l.long[:0], b...)
		for err == bufio.ErrBufferFull {
			b, err = l.br.ReadSlice('\n')
			l.long = append(l.long, b...)
		}
		b = l.long
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(b) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	l.line++
	b = bytes.TrimSuffix(b, []byte{'\n'})
	b = bytes.TrimSuffix(b, []byte{'\r'})
	return b, nil
}
