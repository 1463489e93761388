package realserver

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"
)

// Load is seeded, paced traffic at a server: Senders at once, each on its own
// keep-alive connection, each sending its share of Requests one after another,
// with exponential gaps of mean 1/Rate between the instants it means to send at
// (a sender held up by a delayed answer sends its next at once, without catching
// up). Each request names a key, drawn from Keys by Weights, and a request id:
// GET <base>/f?k=<key>&id=<id>. The same Seed draws the same keys and gaps; when
// the requests arrive is the machine's.
type Load struct {
	Seed    uint64
	Senders int
	// Requests is the most sent in all (each sender sends Requests/Senders).
	Requests int
	// Rate is each sender's mean rate in requests per second; 0: back to back.
	Rate float64
	// Keys and their weights (nil: even).
	Keys    []string
	Weights []int
	// Deadline ends the traffic: no request is sent later than this after the
	// start, and one not answered by then is abandoned (an error).
	Deadline time.Duration
	// Timeout is each request's own (default 10 s).
	Timeout time.Duration
	// Clock is the rate, in requests per second (at most 10,000), at which one
	// more sender sends GET <base>/clock, evenly, on its own connection, while
	// the others send: to nginx, readings of its clock between the limited
	// requests (DeriveNginxArrivals). 0: none.
	Clock float64
}

// Response is one request the load sent and its answer.
type Response struct {
	ID     int64
	Key    string
	Status int
	// Sent is when it was sent, from the load's start; Took how long until the
	// whole answer was read, on the test's clock.
	Sent, Took time.Duration
}

// validate refuses a load that is not bounded.
func (l Load) validate() error {
	switch {
	case l.Senders < 1:
		return fmt.Errorf("load: senders must be >= 1 (got %d)", l.Senders)
	case l.Requests < l.Senders || l.Requests > 3000:
		return fmt.Errorf("load: requests must be from the number of senders to 3000 (got %d)", l.Requests)
	case l.Deadline <= 0 || l.Deadline > 20*time.Second:
		return fmt.Errorf("load: deadline must be > 0 and at most 20s (got %s)", l.Deadline)
	case len(l.Keys) == 0:
		return fmt.Errorf("load: no keys")
	case l.Weights != nil && len(l.Weights) != len(l.Keys):
		return fmt.Errorf("load: %d weights for %d keys", len(l.Weights), len(l.Keys))
	case l.Rate < 0:
		return fmt.Errorf("load: rate must be >= 0 (got %g)", l.Rate)
	case l.Clock < 0 || l.Clock > 10000:
		return fmt.Errorf("load: clock must be from 0 to 10000 requests a second (got %g)", l.Clock)
	}
	return nil
}

// senderID is the first request id of sender s: ids are s*1e6 + 1, + 2, ...
func senderID(s int) int64 { return int64(s) * 1_000_000 }

// Drive sends the load to base (http://127.0.0.1:port) and returns every request
// it sent with its answer, by id. It fails on the first request that gets no
// answer (a transport error, a timeout, the deadline).
func Drive(ctx context.Context, base string, l Load) ([]Response, error) {
	if err := l.validate(); err != nil {
		return nil, err
	}
	if l.Timeout == 0 {
		l.Timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, l.Deadline+l.Timeout)
	defer cancel()
	total := 0
	for _, w := range l.Weights {
		total += w
	}
	pick := func(r *rand.Rand) string {
		if l.Weights == nil {
			return l.Keys[r.IntN(len(l.Keys))]
		}
		x := r.IntN(total)
		for i, w := range l.Weights {
			if x < w {
				return l.Keys[i]
			}
			x -= w
		}
		return l.Keys[len(l.Keys)-1]
	}
	var (
		mu       sync.Mutex
		out      []Response
		firstErr error
		wg       sync.WaitGroup
	)
	start := time.Now().Add(50 * time.Millisecond) // every sender's connection is open by then
	for s := range l.Senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(l.Seed, uint64(s)))
			client := &http.Client{Timeout: l.Timeout, Transport: &http.Transport{
				DialContext:           (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
				MaxIdleConnsPerHost:   1,
				MaxConnsPerHost:       1,
				IdleConnTimeout:       time.Minute,
				ResponseHeaderTimeout: l.Timeout,
				DisableCompression:    true,
			}}
			defer client.CloseIdleConnections()
			// open the connection before the start
			if resp, err := client.Get(base + "/token"); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			next := time.Until(start)
			var mine []Response
			defer func() {
				mu.Lock()
				out = append(out, mine...)
				mu.Unlock()
			}()
			for i := range l.Requests / l.Senders {
				if l.Rate > 0 && i > 0 {
					next += time.Duration(r.ExpFloat64() / l.Rate * float64(time.Second))
				}
				at := start.Add(next)
				if at.Sub(start) > l.Deadline {
					return
				}
				key := pick(r)
				if wait := time.Until(at); wait > 0 {
					select {
					case <-time.After(wait):
					case <-ctx.Done():
						return
					}
				}
				id := senderID(s) + int64(i) + 1
				sent := time.Now()
				if sent.Sub(start) > l.Deadline {
					return
				}
				next = max(next, sent.Sub(start))
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/f?k=%s&id=%d", base, key, id), nil)
				resp, err := client.Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("request %d (key %s): %v", id, key, err)
					}
					mu.Unlock()
					cancel()
					return
				}
				mine = append(mine, Response{ID: id, Key: key, Status: resp.StatusCode, Sent: sent.Sub(start), Took: time.Since(sent)})
			}
		}()
	}
	clockDone := make(chan struct{})
	var clocks sync.WaitGroup
	if l.Clock > 0 {
		clocks.Add(1)
		go func() {
			defer clocks.Done()
			client := &http.Client{Timeout: l.Timeout, Transport: &http.Transport{
				DialContext:         (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
				MaxIdleConnsPerHost: 1,
				MaxConnsPerHost:     1,
			}}
			defer client.CloseIdleConnections()
			every := time.Duration(float64(time.Second) / l.Clock)
			next := time.Now()
			for range int(l.Clock * (l.Deadline + l.Timeout).Seconds()) {
				select {
				case <-clockDone:
					return
				case <-ctx.Done():
					return
				default:
				}
				if wait := time.Until(next); wait > 0 {
					time.Sleep(wait)
				}
				next = next.Add(every)
				resp, err := client.Get(base + "/clock")
				if err != nil {
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	close(clockDone)
	clocks.Wait()
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, firstErr
}

// IDs are the responses' request ids.
func IDs(rs []Response) []int64 {
	ids := make([]int64, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return ids
}
