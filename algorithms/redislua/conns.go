package redislua

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Interrupting a store's calls. go-redis ends a call when its context's deadline
// passes, not when the context is cancelled: a call waiting on a Redis that does
// not answer (stopped with SIGSTOP, say) would wait for its read timeout, and a
// run that is interrupted would wait with it. So a store dials through liveConns,
// which keeps its open connections; when the store's context is done, interrupt
// moves every connection's deadline to the past, so the calls in flight fail at
// once, and refuses new connections and later deadlines, so the calls after fail
// at once too.

// errInterrupted is the dial error of a store whose context is done.
var errInterrupted = errors.New("the run was interrupted")

// dialer is go-redis's Options.Dialer.
type dialer = func(ctx context.Context, network, addr string) (net.Conn, error)

// liveConns are one store's open connections.
type liveConns struct {
	mu      sync.Mutex
	open    map[*interruptible]struct{}
	stopped atomic.Bool
}

// dial wraps base so that every connection it opens is kept, and can be
// interrupted.
func (l *liveConns) dial(base dialer) dialer {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if l.stopped.Load() {
			return nil, errInterrupted
		}
		c, err := base(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		ic := &interruptible{Conn: c, owner: l}
		var out net.Conn = ic
		if sc, ok := c.(syscall.Conn); ok {
			out = &interruptibleSocket{ic, sc}
		}
		l.mu.Lock()
		if l.open == nil {
			l.open = map[*interruptible]struct{}{}
		}
		l.open[ic] = struct{}{}
		l.mu.Unlock()
		if l.stopped.Load() { // interrupted while dialling
			ic.SetDeadline(time.Time{})
		}
		return out, nil
	}
}

// interrupt ends the calls in flight on every connection, and every call after.
func (l *liveConns) interrupt() {
	l.stopped.Store(true)
	l.mu.Lock()
	conns := make([]*interruptible, 0, len(l.open))
	for c := range l.open {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		c.SetDeadline(time.Time{}) // any deadline, now that stopped is set
	}
}

// past is the deadline of an interrupted connection: any time already gone.
var past = time.Unix(1, 0)

// interruptible is a connection whose deadlines are in the past once its owner is
// interrupted. A deadline is set under the connection's lock after looking at
// the flag, and interrupt sets the flag before taking the lock, so a deadline
// go-redis sets for its next call can never undo the interruption.
type interruptible struct {
	net.Conn
	owner *liveConns
	mu    sync.Mutex
}

func (c *interruptible) deadline(t time.Time, set func(time.Time) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.owner.stopped.Load() {
		t = past
	}
	return set(t)
}

func (c *interruptible) SetDeadline(t time.Time) error { return c.deadline(t, c.Conn.SetDeadline) }
func (c *interruptible) SetReadDeadline(t time.Time) error {
	return c.deadline(t, c.Conn.SetReadDeadline)
}
func (c *interruptible) SetWriteDeadline(t time.Time) error {
	return c.deadline(t, c.Conn.SetWriteDeadline)
}

func (c *interruptible) Close() error {
	c.owner.mu.Lock()
	delete(c.owner.open, c)
	c.owner.mu.Unlock()
	return c.Conn.Close()
}

// interruptibleSocket is an interruptible TCP connection. It keeps the socket's
// SyscallConn, with which go-redis checks that a pooled connection is still open
// before it reuses it (a server restarted meanwhile closed it).
type interruptibleSocket struct {
	*interruptible
	sc syscall.Conn
}

func (c *interruptibleSocket) SyscallConn() (syscall.RawConn, error) { return c.sc.SyscallConn() }
