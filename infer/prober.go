package infer

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"
)

// The prober's ways of sending: bursts, single requests, paced runs and runs
// at given offsets, each send within the budget and the rate cap.

// burst sends at the cap until a refusal comes back or n are sent, then waits
// for every answer; it says how many were allowed and whether one was refused.
func (p *prober) burst(n int) (allowed int, refused bool) {
	start := len(p.observations())
	for i := 0; i < n && p.ctx.Err() == nil; i++ {
		if p.refusedSince(start) || !p.send(false) {
			break
		}
	}
	p.inflight.Wait()
	return p.since(start)
}

func (p *prober) refusedSince(start int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, o := range p.obs[start:] {
		if o.Refused {
			return true
		}
	}
	return false
}

// recover sends one request at a time, each 30% further from the last, until
// one passes; it returns the time from the burst's end to it.
func (p *prober) recover() (time.Duration, bool) {
	from := p.lastAt()
	gap := p.minGap()
	for p.left() > 0 && p.ctx.Err() == nil {
		if time.Since(from) > p.o.MaxIdle {
			return 0, false
		}
		sleep(p.ctx, gap)
		if !p.send(true) {
			return 0, false
		}
		obs := p.observations()
		if last := latest(obs); last != nil && !last.Refused {
			return time.Since(from), true
		}
		gap = gap * 13 / 10
	}
	return 0, false
}

// latest is the observation sent last.
func latest(obs []Observation) *Observation {
	if len(obs) == 0 {
		return nil
	}
	return &obs[len(obs)-1]
}

// paced sends n requests gap apart without waiting for their answers, and
// says how many were allowed.
func (p *prober) paced(n int, gap time.Duration) int {
	offsets := make([]time.Duration, n)
	for i := range offsets {
		offsets[i] = time.Duration(i) * gap
	}
	return p.run(offsets)
}

// run sends a request at each of offsets from now (or as soon after as the
// cap allows), without waiting for their answers, and says how many were allowed.
func (p *prober) run(offsets []time.Duration) int {
	start := len(p.observations())
	t0 := time.Now()
	for _, o := range offsets {
		if p.ctx.Err() != nil {
			break
		}
		sleep(p.ctx, time.Until(t0.Add(o)))
		if !p.send(false) {
			break
		}
	}
	p.inflight.Wait()
	allowed, _ := p.since(start)
	return allowed
}

// since counts the answers from observation start on: allowed, and whether
// one was a refusal.
func (p *prober) since(start int) (allowed int, refused bool) {
	for _, o := range p.observations()[start:] {
		if o.Refused {
			refused = true
		} else {
			allowed++
		}
	}
	return allowed, refused
}

// send sends one request when the cap allows, within the budget, and returns
// false when the budget is spent or the context ended; wait waits for its answer.
func (p *prober) send(wait bool) bool {
	p.mu.Lock()
	if p.sent >= p.o.Budget {
		p.mu.Unlock()
		return false
	}
	next := p.lastSend.Add(p.minGap())
	p.mu.Unlock()
	if d := time.Until(next); d > 0 {
		sleep(p.ctx, d)
	}
	if p.ctx.Err() != nil {
		return false
	}
	p.mu.Lock()
	if p.sent >= p.o.Budget {
		p.mu.Unlock()
		return false
	}
	p.sent++
	at := time.Now()
	p.lastSend = at
	p.mu.Unlock()
	// the request's instant is when it was written on the connection, which
	// is closer to the server's decision than when it was begun (a new
	// connection takes its handshake first)
	var wrote time.Time
	var wroteMu sync.Mutex
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {
		wroteMu.Lock()
		wrote = time.Now()
		wroteMu.Unlock()
	}}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(p.ctx, trace), http.MethodGet, p.o.URL, nil)
	if err != nil {
		p.fail(err)
		return false
	}
	for k, vs := range p.o.Header {
		req.Header[k] = vs
	}
	do := func() {
		resp, err := p.o.Client.Do(req)
		if err != nil {
			p.fail(err)
			return
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		wroteMu.Lock()
		sent := wrote
		wroteMu.Unlock()
		if sent.IsZero() {
			sent = at
		}
		o := Observation{At: time.Duration(sent.UnixNano()), Latency: time.Since(sent), Status: resp.StatusCode, Refused: p.o.Refused(resp.StatusCode), Header: resp.Header}
		p.mu.Lock()
		p.obs = append(p.obs, o)
		p.mu.Unlock()
	}
	if wait {
		do()
		return true
	}
	p.inflight.Go(do)
	return true
}

func (p *prober) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failed++
	if p.firstErr == nil && !errors.Is(err, context.Canceled) {
		p.firstErr = err
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
