package session

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The same-mix ceiling: what the Redis does with exactly the calls a replay
// makes, sent as fast as it takes them. A tap between the replay and the server
// records every connection's calls (tap); the ceiling sends those calls again,
// each connection's in its order, on as many connections, written whole and
// read back as they come (sameMix): no engine and no client library between
// the calls, only the server's own work and the loopback. The replay's
// decisions per second over the ceiling's calls per second is how much of the
// server's capacity the replay uses.

// tap is a loopback TCP proxy to a Redis that records what each client
// connection sends.
type tap struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	sent   []*bytes.Buffer // per connection, in the order they were accepted
	conns  []net.Conn      // both ends of every connection, closed with the tap
	closed bool
	wg     sync.WaitGroup
}

// startTap listens on a free loopback port and forwards to target (host:port).
func startTap(tb testing.TB, target string) *tap {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	t := &tap{ln: ln, target: target}
	t.wg.Add(1)
	go t.accept()
	tb.Cleanup(t.close)
	return t
}

// URL is the redis:// URL that reaches the server through the tap.
func (t *tap) URL() string { return "redis://" + t.ln.Addr().String() }

func (t *tap) accept() {
	defer t.wg.Done()
	for {
		client, err := t.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", t.target)
		if err != nil {
			client.Close()
			continue
		}
		rec := &bytes.Buffer{}
		t.mu.Lock()
		if t.closed {
			t.mu.Unlock()
			client.Close()
			server.Close()
			return
		}
		t.sent = append(t.sent, rec)
		t.conns = append(t.conns, client, server)
		t.mu.Unlock()
		t.wg.Add(2)
		go func() { // what the client sends, recorded on its way
			defer t.wg.Done()
			io.Copy(server, io.TeeReader(client, lockedWriter{&t.mu, rec}))
			server.(*net.TCPConn).CloseWrite()
		}()
		go func() {
			defer t.wg.Done()
			io.Copy(client, server)
			client.Close()
		}()
	}
}

// lockedWriter writes to w under mu (the recordings are read under it).
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// close stops the tap: no more connections, those open closed, and its
// goroutines done.
func (t *tap) close() {
	t.ln.Close()
	t.mu.Lock()
	t.closed = true
	for _, c := range t.conns {
		c.Close()
	}
	t.mu.Unlock()
	t.wg.Wait()
}

// scripts is every recorded connection's script calls (EVALSHA and EVAL), in
// its order, as RESP: the calls a ceiling sends again. It says how many calls
// each holds, and every key they name (EVALSHA sha numkeys key...): what the
// ceiling writes, and removes, nothing else.
func (t *tap) scripts(tb testing.TB) (streams [][]byte, calls []int, keys []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	seen := map[string]bool{}
	for _, rec := range t.sent {
		var out bytes.Buffer
		n := 0
		r := bufio.NewReader(bytes.NewReader(rec.Bytes()))
		for {
			args, err := readCommand(r)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				tb.Fatalf("the tap's recording: %v", err)
			}
			if name := strings.ToUpper(args[0]); name != "EVALSHA" && name != "EVAL" {
				continue
			}
			numKeys, err := strconv.Atoi(args[2])
			if err != nil || 3+numKeys > len(args) {
				tb.Fatalf("a call without its keys: %q", args)
			}
			for _, k := range args[3 : 3+numKeys] {
				seen[k] = true
			}
			writeCommand(&out, args)
			n++
		}
		if n > 0 {
			streams, calls = append(streams, out.Bytes()), append(calls, n)
		}
	}
	return streams, calls, slices.Sorted(maps.Keys(seen))
}

// readCommand reads one command a client sent: an array of bulk strings.
func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		if line == "" {
			return nil, io.EOF
		}
		return nil, err
	}
	if !strings.HasPrefix(line, "*") {
		return nil, fmt.Errorf("a command that is not an array: %q", line)
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil {
		return nil, err
	}
	args := make([]string, n)
	for i := range args {
		head, err := r.ReadString('\n')
		if err != nil || !strings.HasPrefix(head, "$") {
			return nil, fmt.Errorf("an argument that is not a bulk string: %q", head)
		}
		size, err := strconv.Atoi(strings.TrimSpace(head[1:]))
		if err != nil {
			return nil, err
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		args[i] = string(buf[:size])
	}
	return args, nil
}

func writeCommand(w *bytes.Buffer, args []string) {
	fmt.Fprintf(w, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(w, "$%d\r\n%s\r\n", len(a), a)
	}
}

// sameMix sends every stream on a connection of its own to addr, all at once,
// each written whole while its replies are read, and returns the calls per
// second from the first write to the last reply. A reply that is an error
// fails tb: the calls must do the replay's work, not fail fast.
func sameMix(tb testing.TB, addr string, streams [][]byte, calls []int) float64 {
	conns := make([]net.Conn, len(streams))
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			tb.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
	}
	errs := make(chan error, 2*len(conns))
	total := 0
	start := time.Now()
	for i, c := range conns {
		total += calls[i]
		go func() { _, err := c.Write(streams[i]); errs <- err }()
		go func() {
			r := bufio.NewReaderSize(c, 1<<16)
			for range calls[i] {
				if err := skipReply(r); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 2 * len(conns) {
		if err := <-errs; err != nil {
			tb.Fatalf("same-mix ceiling: %v", err)
		}
	}
	return float64(total) / time.Since(start).Seconds()
}

// skipReply reads one RESP2 reply, failing on an error reply.
func skipReply(r *bufio.Reader) error {
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	switch line[0] {
	case '+', ':':
		return nil
	case '-':
		return fmt.Errorf("Redis answered %q", strings.TrimSpace(line))
	case '$':
		n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
		if err != nil || n < 0 {
			return err
		}
		_, err = r.Discard(n + 2)
		return err
	case '*':
		n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
		if err != nil {
			return err
		}
		for range n {
			if err := skipReply(r); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("a reply of unknown type: %q", line)
}
