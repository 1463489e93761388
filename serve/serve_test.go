package serve_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"sync"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/serve"
)

// lanes are one of each kind served: the generic algorithms, products with
// their own answers (nginx delaying within its burst, HAProxy counting
// refusals, Kong's windows) and a lane of two limits. Their limits are per
// minute, so that the test's traffic reaches them however slowly it runs (the
// race detector, a busy machine); nginx's is per second, to hold requests a
// fraction of one.
func lanes(t *testing.T) []serve.Lane {
	t.Helper()
	key, err := serve.ParseKey("header:X-Key")
	if err != nil {
		t.Fatal(err)
	}
	p := func(limit int64, period time.Duration, burst int64) algorithms.Policy {
		return algorithms.Policy{Limit: limit, Period: period, Burst: burst}
	}
	one := func(name string, alg algorithms.Name, pol algorithms.Policy, o algorithms.Options) serve.Lane {
		return serve.Lane{Name: name, Key: key, Headers: algorithms.MustLookup(alg).Headers, Limits: []serve.Limit{{Algorithm: alg, Policy: pol, Options: o}}}
	}
	global, _ := algorithms.ParseKeyTemplate("everyone")
	return []serve.Lane{
		one("tb", algorithms.TokenBucketName, p(1, time.Minute, 5), algorithms.Options{}),
		one("gcra", algorithms.GCRAName, p(1, time.Minute, 3), algorithms.Options{}),
		one("fw", algorithms.FixedWindowName, p(5, time.Minute, 0), algorithms.Options{}),
		one("log", algorithms.SlidingLogName, p(4, time.Minute, 0), algorithms.Options{}),
		one("nginx", algorithms.NginxName, p(5, time.Second, 3), algorithms.Options{}),
		one("haproxy", algorithms.HAProxyName, p(3, time.Minute, 0), algorithms.Options{}),
		one("kong", algorithms.KongName, p(5, time.Minute, 0), algorithms.Options{}),
		{Name: "two", Key: key, Combine: algorithms.AllOrNothing, Limits: []serve.Limit{
			{Name: "per-key", Algorithm: algorithms.TokenBucketName, Policy: p(1, time.Minute, 5)},
			{Name: "everyone", Algorithm: algorithms.SlidingCounterName, Policy: p(60, time.Minute, 0), Template: global},
		}},
	}
}

// Hundreds of concurrent clients get, over HTTP on the wall clock, exactly the
// decisions the same arrivals get replayed through fresh limiters: each served
// decision (allowed, remaining, retry-after, delay, status, rule) is the
// replay's, and every client saw the status the log says it was sent.
func TestServedDecisionsAreTheReplayedOnes(t *testing.T) {
	ls := lanes(t)
	var mu sync.Mutex
	var served []serve.Arrival
	o := serve.Options{Lanes: ls, OnDecision: func(a serve.Arrival) { served = append(served, a) }}
	s, err := serve.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s) // 127.0.0.1 on a free port
	defer ts.Close()
	const clients, each = 300, 12
	seen := map[string]map[int]int{} // lane/key → status → count, as the clients saw them
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	for c := range clients {
		wg.Go(func() {
			for j := range each {
				lane := ls[(c+j)%len(ls)].Name
				key := fmt.Sprintf("k%d", c%23)
				req, _ := http.NewRequest(http.MethodGet, ts.URL+"/"+url.PathEscape(lane)+"/x", nil)
				req.Header.Set("X-Key", key)
				resp, err := hc.Do(req)
				if err != nil {
					errs <- err
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				id := lane + "/" + key
				if seen[id] == nil {
					seen[id] = map[int]int{}
				}
				seen[id][resp.StatusCode]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(served) != clients*each {
		t.Fatalf("%d decisions logged, want %d", len(served), clients*each)
	}
	replayed, err := serve.Replay(o, served)
	if err != nil {
		t.Fatal(err)
	}
	refused, delayed := map[string]int{}, 0
	logged := map[string]map[int]int{}
	for i, a := range served {
		if i > 0 && a.At < served[i-1].At {
			t.Fatalf("decision %d at %v, before the one made before it (%v)", i, a.At, served[i-1].At)
		}
		if !reflect.DeepEqual(a, replayed[i]) {
			t.Fatalf("decision %d (lane %s, key %s, at %v):\nserved   %+v\nreplayed %+v", i, ls[a.Lane].Name, a.Key, a.At, a, replayed[i])
		}
		if !a.Allowed {
			refused[ls[a.Lane].Name]++
		}
		if a.Delay > 0 {
			delayed++
		}
		id := ls[a.Lane].Name + "/" + a.Key
		if logged[id] == nil {
			logged[id] = map[int]int{}
		}
		logged[id][a.Status]++
	}
	if !reflect.DeepEqual(seen, logged) {
		t.Errorf("the statuses the clients saw differ from the log's:\nseen   %v\nlogged %v", seen, logged)
	}
	// the traffic tests something: every lane refused some, and nginx held some
	for _, l := range ls {
		if refused[l.Name] == 0 {
			t.Errorf("lane %s refused nothing: the test's traffic does not reach its limit", l.Name)
		}
	}
	if delayed == 0 {
		t.Error("nginx held no request within its burst")
	}
	t.Logf("%d decisions by %d concurrent clients; refused per lane %v; %d held", len(served), clients, refused, delayed)
}
