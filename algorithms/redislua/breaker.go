package redislua

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// A Redis that stops answering (a frozen server, a network that drops packets)
// fails a call after callTimeout. Without more, every later call would wait as
// long: a UI frame whose lanes make dozens of calls would take minutes of wall
// clock to reach their on_error decisions, which are what the run shows of the
// outage anyway. So once a call times out the store is taken as down: every call
// fails at once, with ErrDown, as a client's circuit breaker fails them, until a
// PING on a connection of its own answers (one every probeEvery, each bounded
// by dialTimeout), and the calls go to Redis again. A refused connection (no
// server) is not a timeout: it fails at once by itself and trips nothing.
//
// The decisions a lane makes while Redis is down are its on_error's, as they
// would be after the timeouts; which calls fail when Redis freezes or resumes
// depends on the wall clock either way.

// ErrDown is the error of a call made while the store is down (see above).
var ErrDown = fmt.Errorf("no answer from Redis within %v; its calls fail at once until it answers again", callTimeout)

// probeEvery is how often a down store asks Redis whether it answers again.
const probeEvery = 250 * time.Millisecond

// breaker is a Store's circuit breaker, a go-redis hook on its client.
type breaker struct {
	down atomic.Bool
	ctx  context.Context // the store's: a probe stops when it is done
	// ping asks Redis on a connection of its own, outside the hook.
	ping func(context.Context) error
}

func (b *breaker) DialHook(next redis.DialHook) redis.DialHook { return next }

func (b *breaker) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if b.down.Load() {
			cmd.SetErr(ErrDown)
			return ErrDown
		}
		err := next(ctx, cmd)
		b.observe(err)
		return err
	}
}

func (b *breaker) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if b.down.Load() {
			for _, c := range cmds {
				c.SetErr(ErrDown)
			}
			return ErrDown
		}
		err := next(ctx, cmds)
		b.observe(err)
		return err
	}
}

// observe takes the store as down after a call that timed out, and starts
// probing for Redis to answer again.
func (b *breaker) observe(err error) {
	var ne net.Error
	if err == nil || !errors.As(err, &ne) || !ne.Timeout() || b.ctx.Err() != nil {
		return
	}
	if b.down.CompareAndSwap(false, true) {
		go b.probe()
	}
}

// probe pings Redis every probeEvery until it answers (the store is up again)
// or the store's context is done.
func (b *breaker) probe() {
	tick := time.NewTicker(probeEvery)
	defer tick.Stop()
	for {
		select {
		case <-b.ctx.Done():
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(b.ctx, dialTimeout)
		err := b.ping(ctx)
		cancel()
		if err == nil {
			b.down.Store(false)
			return
		}
	}
}
