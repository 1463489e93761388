package sim

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"time"

	"ratelab/algorithms"
)

// spool is a first-in first-out queue of rows that keeps at most spoolMemory of
// them in memory and the rest in a temporary file, removed from its folder as
// soon as it is made (so nothing is left behind, whatever happens to the
// process). A lane keeps in one the rows waiting behind one whose fate is not
// yet known (fate.go), and the merge (stream.go) carries in one per lane the
// rows it may not write yet because another lane still owes an earlier row:
// with a backend and a queue delay, every lane's rows of a whole queue delay.
// Rows come out in the order they went in.
type spool struct {
	mem  []Row // the rows in memory: the queue's head when onDisk is 0, else its tail
	head int   // mem's first row not yet taken

	// the rows on disk, between mem's head part (front) and mem (the tail)
	file          *os.File
	front         []Row // rows read back from disk, to take before the rest
	frontHead     int
	onDisk        int   // rows on disk not yet read back
	readAt, endAt int64 // the file's offsets: next row to read, end of what is written
	buf           []byte
}

// spoolMemory is the most rows a spool keeps in memory (about 200 bytes each)
// before it writes more to its file; up to twice as many while it reads back.
var spoolMemory = 1 << 12

// spoolDir is where spools make their files; "" is the system's temporary folder.
var spoolDir = ""

func (s *spool) len() int { return len(s.front) - s.frontHead + s.onDisk + len(s.mem) - s.head }

// push appends row.
func (s *spool) push(row Row) error {
	if s.head > 0 && s.head >= len(s.mem)/2 {
		n := copy(s.mem, s.mem[s.head:])
		clear(s.mem[n:])
		s.mem, s.head = s.mem[:n], 0
	}
	s.mem = append(s.mem, row)
	if len(s.mem)-s.head < spoolMemory {
		return nil
	}
	return s.spill()
}

// spill moves the rows in memory but the front part to the end of the file.
func (s *spool) spill() error {
	if s.file == nil {
		f, err := os.CreateTemp(spoolDir, "ratelab-rows-")
		if err != nil {
			return err
		}
		os.Remove(f.Name()) // it lives as long as it is open
		s.file = f
	}
	if s.onDisk == 0 && len(s.front) == s.frontHead {
		// nothing on disk: the rows in memory become the front, taken first
		s.front, s.frontHead = s.mem[s.head:], 0
		s.mem, s.head = nil, 0
		return nil
	}
	b := s.buf[:0]
	for _, row := range s.mem[s.head:] {
		b = appendRow(b, &row)
	}
	s.buf = b
	if _, err := s.file.WriteAt(b, s.endAt); err != nil {
		return err
	}
	s.endAt += int64(len(b))
	s.onDisk += len(s.mem) - s.head
	clear(s.mem)
	s.mem, s.head = s.mem[:0], 0
	return nil
}

// peek is the first row, and false when there is none. A read that fails is
// returned as the error.
func (s *spool) peek() (*Row, error) {
	if s.frontHead < len(s.front) {
		return &s.front[s.frontHead], nil
	}
	if s.onDisk > 0 {
		if err := s.readBack(); err != nil {
			return nil, err
		}
		return &s.front[s.frontHead], nil
	}
	if s.head < len(s.mem) {
		return &s.mem[s.head], nil
	}
	return nil, nil
}

// pop removes the row peek returned.
func (s *spool) pop() {
	if s.frontHead < len(s.front) {
		s.front[s.frontHead] = Row{}
		s.frontHead++
		return
	}
	s.mem[s.head] = Row{}
	s.head++
}

// readBack reads up to spoolMemory rows from the file into front.
func (s *spool) readBack() error {
	n := min(s.onDisk, spoolMemory)
	s.front, s.frontHead = s.front[:0], 0
	for len(s.front) < n {
		size := min(s.endAt-s.readAt, 1<<20)
		if int64(cap(s.buf)) < size {
			s.buf = make([]byte, size)
		}
		b := s.buf[:size]
		if _, err := s.file.ReadAt(b, s.readAt); err != nil {
			return err
		}
		used := 0
		for len(s.front) < n {
			row, k, ok := decodeRow(b[used:])
			if !ok {
				break
			}
			s.front = append(s.front, row)
			used += k
		}
		if used == 0 {
			return errors.New("sim: a spooled row does not fit the read buffer")
		}
		s.readAt += int64(used)
	}
	s.onDisk -= n
	if s.onDisk == 0 {
		s.readAt, s.endAt = 0, 0 // the file is empty again: reuse it from the start
	}
	return nil
}

// close removes the file.
func (s *spool) close() {
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
}

// appendRow encodes row: its fixed fields, then each of its Limits.
func appendRow(b []byte, r *Row) []byte {
	le := binary.LittleEndian
	for _, v := range []int64{int64(r.At), int64(r.Lane), int64(r.Client), int64(r.Key), r.Request, int64(r.Attempt), r.Cost,
		int64(math.Float64bits(r.Remaining)), int64(r.RetryAfter), int64(r.ResetAfter), r.Limit, int64(r.Shard),
		int64(r.DecidedAt), int64(r.AdmittedAt), int64(r.QueueDelay), int64(r.Latency), int64(len(r.Limits))} {
		b = le.AppendUint64(b, uint64(v))
	}
	b = append(b, flags(r.Allowed, r.Wasted)|byte(r.Shadow)<<2, byte(r.Outcome))
	b = le.AppendUint16(le.AppendUint16(b, uint16(r.Decisive)), uint16(r.AlsoRefusing))
	for _, d := range r.Limits {
		for _, v := range []int64{int64(math.Float64bits(d.Remaining)), d.Limit, int64(d.RetryAfter), int64(d.ResetAfter), int64(d.Delay)} {
			b = le.AppendUint64(b, uint64(v))
		}
		b = append(b, flags(d.Allowed, d.OnError)|byte(d.Shadow)<<2)
	}
	return b
}

const rowFixed = 17*8 + 6
const limitSize = 5*8 + 1

// decodeRow decodes the row at the start of b, its size, and false when b does
// not hold all of it.
func decodeRow(b []byte) (Row, int, bool) {
	if len(b) < rowFixed {
		return Row{}, 0, false
	}
	le := binary.LittleEndian
	v := func(i int) int64 { return int64(le.Uint64(b[8*i:])) }
	n := int(v(16))
	size := rowFixed + n*limitSize
	if len(b) < size {
		return Row{}, 0, false
	}
	r := Row{At: time.Duration(v(0)), Lane: int(v(1)), Client: int(v(2)), Key: int(v(3)), Request: v(4), Attempt: int(v(5)), Cost: v(6),
		Remaining: math.Float64frombits(uint64(v(7))), RetryAfter: time.Duration(v(8)), ResetAfter: time.Duration(v(9)), Limit: v(10), Shard: int32(v(11)),
		DecidedAt: time.Duration(v(12)), AdmittedAt: time.Duration(v(13)), QueueDelay: time.Duration(v(14)), Latency: time.Duration(v(15)),
		Allowed: b[17*8]&1 != 0, Wasted: b[17*8]&2 != 0, Shadow: algorithms.Shadow(b[17*8] >> 2), Outcome: Outcome(b[17*8+1]),
		Decisive: int16(le.Uint16(b[17*8+2:])), AlsoRefusing: int16(le.Uint16(b[17*8+4:]))}
	if n > 0 {
		r.Limits = make([]algorithms.Decision, n)
		for i := range r.Limits {
			p := b[rowFixed+i*limitSize:]
			w := func(j int) int64 { return int64(le.Uint64(p[8*j:])) }
			r.Limits[i] = algorithms.Decision{Remaining: math.Float64frombits(uint64(w(0))), Limit: w(1), RetryAfter: time.Duration(w(2)),
				ResetAfter: time.Duration(w(3)), Delay: time.Duration(w(4)), Allowed: p[40]&1 != 0, OnError: p[40]&2 != 0, Shadow: algorithms.Shadow(p[40] >> 2)}
		}
	}
	return r, size, true
}

// flags packs two booleans in a byte: a as bit 0, b as bit 1.
func flags(a, b bool) byte {
	var f byte
	if a {
		f |= 1
	}
	if b {
		f |= 2
	}
	return f
}
