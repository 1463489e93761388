package sim

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// A client's open-loop arrivals are the same in every lane: their times, keys and
// costs come from the client's own random stream (or its trace), never from a
// decision, and every lane applies the same inputs at the same instants. So a run
// makes them once per client, with an arrivalStream, into an arrivalFeed that each
// lane reads from where it is with a feedReader of its own: a lane reads the
// entries the first lane to need them made. The lanes run at once and at their own
// pace, so the feed keeps the entries between the slowest lane and the fastest
// (and makes over the chunks every lane has passed); a lane that gets feedWindow
// chunks ahead of the slowest clones the stream where it is and makes the rest of
// its arrivals on its own, as every lane used to, so the memory held stays bounded
// however far apart the lanes drift (a burst of ten million at one instant, read
// by a lane that admits everything and by one that logs every request).
//
// A feed makes, in one go, no entry past the first at or after the step's end
// (arrivalFeed.limit): an input made live at the pause (Run.AddInput) then finds
// the stream just where every lane is, having read that entry as its pending
// arrival, and the stream switches generator exactly where each lane used to.

// feedEnd is the key of an entry that marks the end of the stream's generator
// (arrival.key is otherwise a position in the client's keys); its cost is 1 when
// the generator failed (see arrivalFeed.failure).
const feedEnd = -1

const (
	firstChunk = 16   // entries in a feed's first chunk; each next one doubles
	maxChunk   = 4096 // up to this many (96 KiB)
)

// feedWindow is how many chunks a lane may be ahead of the slowest before it goes
// on its own: at most 1.5 MiB a client. A variable so tests can make lanes go.
var feedWindow int64 = 16

// arrivalStream is a client's open-loop arrivals with the run's rate inputs
// applied to them: an input for the client at T drops the generator's first
// arrival at or after T (the lane's pending arrival, which the input comes before)
// and starts a new generator from T, as Lane.setRate asks. It is driven by the
// feed under its lock, or by one lane alone once cloned.
type arrivalStream struct {
	client int
	c      *Client
	src    *source // nil for a trace, whose rows carry their key and cost
	gen    arrivals
	inputs *[]Input
	input  int           // the first of *inputs not yet looked at
	last   time.Duration // the generator's latest arrival
	drawn  bool          // the generator has made an arrival (last)
	ended  bool          // the generator is done, its end the latest entry
}

// newArrivalStream is client i's stream (nil for a closed loop), under the run's
// seed and inputs. A trace is opened here.
func newArrivalStream(cfg *Config, i int, inputs *[]Input) (*arrivalStream, error) {
	c := &cfg.Clients[i]
	if _, loop := c.Pattern.(ClosedLoop); loop {
		return nil, nil
	}
	s := &arrivalStream{client: i, c: c, inputs: inputs}
	if _, trace := c.Pattern.(Trace); !trace {
		s.src = newSource(cfg.Seed, i, c)
	}
	gen, err := newArrivals(c, s.src)
	if err != nil {
		return nil, fmt.Errorf("client %q: %w", c.Name, err)
	}
	s.gen = gen
	return s, nil
}

// step returns the stream's next entry: an arrival, or the end of its generator
// (key feedEnd, once per generator); false when the generator has ended and no
// rate input has come to start another.
func (s *arrivalStream) step() (arrival, bool) {
	for {
		if in, ok := s.rateInput(); ok && (s.ended || s.drawn && s.last >= in.At) {
			s.input++
			s.start(in)
			continue
		}
		if s.ended {
			return arrival{}, false
		}
		a, ok := s.gen.next()
		if !ok {
			s.ended = true
			end := arrival{key: feedEnd}
			if s.gen.err() != nil {
				end.cost = 1
			}
			return end, true
		}
		s.last, s.drawn = a.at, true
		return a, true
	}
}

// rateInput is the next rate input for the stream's client not yet applied.
// Inputs for others, and of other kinds, are passed over for good.
func (s *arrivalStream) rateInput() (Input, bool) {
	for ; s.input < len(*s.inputs); s.input++ {
		if in := (*s.inputs)[s.input]; in.Kind == InputRate && in.Client == s.client {
			return in, true
		}
	}
	return Input{}, false
}

// start makes the client send at in.Rate from in.At: constant spacing, or
// exponential gaps for a Poisson client; nothing at a rate of 0, or for a trace.
func (s *arrivalStream) start(in Input) {
	s.drawn, s.ended = false, false
	if s.src == nil || in.Rate <= 0 {
		s.gen = noArrivals{}
		return
	}
	_, poisson := s.c.Pattern.(Poisson)
	s.gen = &rateArrivals{from: in.At, stop: s.c.Stop, rate: in.Rate, poisson: poisson, src: s.src}
}

// clone is a stream at the same point that goes on by itself.
func (s *arrivalStream) clone() (*arrivalStream, error) {
	n := *s
	if s.src != nil {
		n.src = s.src.clone()
	}
	if s.ended {
		n.gen = noArrivals{} // done: its next input starts another
		return &n, nil
	}
	gen, err := s.gen.clone(n.src)
	if err != nil {
		return nil, fmt.Errorf("client %q: %w", s.c.Name, err)
	}
	n.gen = gen
	return &n, nil
}

// close releases the stream's trace, if it is still open; the stream makes
// nothing more.
func (s *arrivalStream) close() {
	if t, ok := s.gen.(*traceArrivals); ok && !s.ended {
		t.r.Close()
	}
	s.gen, s.ended, s.inputs = noArrivals{}, true, &[]Input{}
}

// fill appends the stream's next entries to c, at least one when the stream has
// any: until c is full, an end, or the first entry at or after limit. It says
// whether it appended any, and the failure behind an end.
func (s *arrivalStream) fill(c *feedChunk, limit time.Duration) (bool, error) {
	start := c.n
	for c.n < len(c.buf) {
		a, ok := s.step()
		if !ok {
			break
		}
		c.buf[c.n] = a
		c.n++
		if a.key == feedEnd {
			return true, s.gen.err()
		}
		if a.at >= limit {
			break
		}
	}
	return c.n > start, nil
}

// feedChunk is a run of a feed's entries. buf[:n] is written, and n grows
// under the feed's lock (a reader takes n under the lock and then reads buf[:n]
// without it); an entry, once written, stays until every reader has passed the
// chunk and the feed makes it over (newChunk). next is the chunk after it, once
// made.
type feedChunk struct {
	seq  int64
	buf  []arrival
	n    int
	next *feedChunk
}

// arrivalFeed is a client's arrivals, made once and read by every lane.
type arrivalFeed struct {
	mu      sync.Mutex
	stream  *arrivalStream
	tail    *feedChunk
	chunks  []*feedChunk // those a reader may still be on, oldest first, up to tail
	at      []int64      // per reader, the seq of its chunk; math.MaxInt64 once on its own or done
	limit   time.Duration
	failure error // the stream's failure, behind its failed end
}

// newArrivalFeed is a feed of stream for `readers` lanes. Its limit is 0 until the
// first step: each lane reads its first arrival as the run is made, and the
// stream makes no more than that one.
func newArrivalFeed(stream *arrivalStream, readers int) *arrivalFeed {
	first := &feedChunk{buf: make([]arrival, firstChunk)}
	return &arrivalFeed{stream: stream, tail: first, chunks: []*feedChunk{first}, at: make([]int64, readers)}
}

// reader is lane i's reader of the feed, at its start.
func (f *arrivalFeed) reader(i int) *feedReader {
	return &feedReader{feed: f, id: i, chunk: f.tail}
}

// setLimit makes the feed's entries stop, in each go, at the first at or after t
// (the end of the step the lanes are about to run). Called between steps.
func (f *arrivalFeed) setLimit(t time.Duration) {
	f.mu.Lock()
	f.limit = t
	f.mu.Unlock()
}

// close releases the feed's trace.
func (f *arrivalFeed) close() {
	f.mu.Lock()
	f.stream.close()
	f.mu.Unlock()
}

// slowest is the chunk of the reader furthest behind (under mu).
func (f *arrivalFeed) slowest() int64 {
	least := int64(math.MaxInt64)
	for _, at := range f.at {
		least = min(least, at)
	}
	return least
}

// feedReader is one lane's view of a client's feed: the entries buf[i:n] of its
// chunk are known to it, so it reads them without the lock.
type feedReader struct {
	feed  *arrivalFeed
	id    int
	chunk *feedChunk
	i, n  int
	// atEnd says the lane was told the generator ended (next returned false on
	// the end at i): only that end does restart pass. An end the stream made
	// ahead, which the lane has not reached, is still to be read.
	atEnd bool
	// own, once the lane went on its own: its stream, and its failure
	own     *arrivalStream
	failure error
}

// next returns the lane's next arrival; false at the end of the generator (the
// reader stays on it until restart).
func (r *feedReader) next() (arrival, bool) {
	if r.i == r.n && !r.more() {
		return arrival{}, false
	}
	a := r.chunk.buf[r.i]
	if a.key == feedEnd {
		r.atEnd = true
		return arrival{}, false
	}
	r.i++
	return a, true
}

// restart passes the end the lane was told of, if any: the lane applied a rate
// input, and the stream goes on with the generator the input started. An end
// not yet read stays: it is the end of the generator the lane has just started
// (a rate of 0 stops the client, and the stream may have made its end already).
func (r *feedReader) restart() {
	if r.atEnd {
		r.i++
		r.atEnd = false
	}
}

// err is the failure behind the end the reader is on (a trace that changed).
func (r *feedReader) err() error {
	if r.i < r.n && r.chunk.buf[r.i].key == feedEnd && r.chunk.buf[r.i].cost == 1 {
		if r.own != nil {
			return r.failure
		}
		r.feed.mu.Lock()
		defer r.feed.mu.Unlock()
		return r.feed.failure
	}
	return nil
}

// leave takes the reader out of the feed's count of where the lanes are: its lane
// reads no more (it stopped), so the feed keeps nothing for it. (A reader on its
// own is out of it already; its trace is closed with the run's, Run.Close.)
func (r *feedReader) leave() {
	if r.own != nil {
		return
	}
	r.feed.mu.Lock()
	r.feed.at[r.id] = math.MaxInt64
	r.feed.mu.Unlock()
}

// more makes entries after n known to the reader; false when there are none.
func (r *feedReader) more() bool {
	if r.own != nil {
		return r.moreOwn()
	}
	f := r.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	for {
		c := r.chunk
		if r.n < c.n {
			r.n = c.n
			return true
		}
		if c.n < len(c.buf) { // the tail, with room: make entries into it
			ok, err := f.stream.fill(c, f.limit)
			if err != nil {
				f.failure = err
			}
			r.n = c.n
			return ok
		}
		if c.next == nil { // the tail, full
			slowest := f.slowest()
			if c.seq+1-slowest >= feedWindow {
				return r.goOwn()
			}
			c.next = f.newChunk(c, slowest)
			f.tail = c.next
		}
		r.chunk, r.i, r.n = c.next, 0, 0
		f.at[r.id] = r.chunk.seq
	}
}

// newChunk is the chunk after tail: one every reader has passed (behind the
// slowest), made over, or a new one twice tail's size up to maxChunk (under mu).
// Reusing them, a run makes no garbage of its arrivals however long it is.
func (f *arrivalFeed) newChunk(tail *feedChunk, slowest int64) *feedChunk {
	size := min(2*len(tail.buf), maxChunk)
	var c *feedChunk
	if old := f.chunks[0]; old.seq < slowest && len(old.buf) == size {
		c = old
		f.chunks = f.chunks[1:]
		c.n, c.next = 0, nil
	} else {
		for len(f.chunks) > 0 && f.chunks[0].seq < slowest {
			f.chunks = f.chunks[1:] // smaller than the chunks now made: the collector's
		}
		c = &feedChunk{buf: make([]arrival, size)}
	}
	c.seq = tail.seq + 1
	f.chunks = append(f.chunks, c)
	return c
}

// goOwn makes the reader, at the end of the feed's tail, go on alone with a clone
// of the feed's stream (under the feed's lock).
func (r *feedReader) goOwn() bool {
	f := r.feed
	f.at[r.id] = math.MaxInt64
	r.chunk, r.i, r.n = &feedChunk{buf: make([]arrival, maxChunk)}, 0, 0
	own, err := f.stream.clone()
	if err != nil {
		r.chunk.buf[0], r.chunk.n, r.n = arrival{key: feedEnd, cost: 1}, 1, 1
		r.own, r.failure = new(arrivalStream), err
		r.own.close() // it makes nothing more
		return true
	}
	r.own = own
	return r.moreOwn()
}

// moreOwn makes the lane's own next entries, in its own chunk. The feed's limit
// is read without the lock: it changes only between steps, which the lanes'
// goroutines are told of through a channel.
func (r *feedReader) moreOwn() bool {
	c := r.chunk
	c.n, r.i = 0, 0
	ok, err := r.own.fill(c, r.feed.limit)
	if err != nil {
		r.failure = err
	}
	r.n = c.n
	return ok
}
