// Package redislua runs ratelab's algorithms on a real Redis: each as a Lua script
// (embedded .lua files) sent with EVALSHA, and the token bucket and GCRA also the two
// non-atomic ways — read, compute in Go, write back (multi), and WATCH/MULTI/EXEC
// (watch) — so their races are real Redis races.
//
// The scripts make exactly the integer steps of the in-memory limiters, so a Redis
// lane decides as its memory twin does. Keys are {<prefix>:<lane>.<tier>}:<key>: the
// hash tag keeps every key of a lane (a script touching two keys included) in one
// slot of a Redis Cluster. Every key gets a PEXPIRE, and a run removes its own keys
// when it ends (SCAN on its prefix); nothing outside the prefix is read or written.
//
// Failures: a script is resent with EVAL only when EVALSHA answers NOSCRIPT (after a
// restart, a failover or SCRIPT FLUSH), since then it did not run. Any other
// failure may have spent tokens, so it is never replayed: the decision follows the
// lane's on_error (open: allow, closed: deny) and is counted. Retries are off in
// the client for the same reason.
package redislua

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

//go:embed scripts/*.lua
var scriptFiles embed.FS

// quiet drops go-redis's own log lines (a failed dial, a reconnect): every failure
// reaches ratelab as an error, counted per lane and reported in its own words.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// quietOnce silences go-redis's global logger, once, when ratelab first connects:
// a library-wide setting changed by the program that uses it, not by an import.
var quietOnce sync.Once

// poolSize is the most connections a store opens (per node). A watch step holds a
// connection of its own from WATCH to EXEC, so as many are needed as deciders are
// in flight; connections are opened only when needed.
const poolSize = 4096

// dialTimeout bounds a connection attempt. A Redis that is down costs one failed
// dial per call, not several with backoff between: a limiter must answer (by its
// on_error) fast when its store is gone.
const dialTimeout = time.Second

// callTimeout bounds every read and write of a call: a Redis that stops answering
// fails a call within it, and the decision follows the lane's on_error.
const callTimeout = 3 * time.Second

// cleanupTimeout bounds removing a run's keys when it ends: a Redis that does not
// answer is reported, not waited for; the keys' PEXPIRE removes them later.
const cleanupTimeout = 2 * time.Second

// Store is one run's connection to Redis: the client, the run's key prefix, the
// scripts.
type Store struct {
	client  redis.UniversalClient
	cluster *redis.ClusterClient // nil unless a cluster
	// Prefix is "ratelab:<run-id>", unique per run.
	Prefix string
	// Addr is where Redis is, for messages: host and port, never the password.
	Addr string

	// ctx bounds every call; when it is done, conns interrupts them all.
	ctx       context.Context
	conns     *liveConns
	stopWatch func() bool
	// fresh connects anew, outside ctx and conns: to clean up after an
	// interruption.
	fresh func() redis.UniversalClient
	// breaker fails the calls at once while Redis does not answer (breaker.go);
	// stopBreaker ends its probing.
	breaker     *breaker
	stopBreaker context.CancelFunc
}

// ErrURL is a --redis value that is not a Redis URL. Its message never repeats the
// URL, which may hold a password.
var ErrURL = errors.New(`not a Redis URL: want redis://[user:password@]host:port[/db] or rediss://…, with ?cluster=true for a Redis Cluster (the URL is not shown: it may hold a password)`)

// Open connects to the Redis at rawURL (redis:// or rediss://; ?cluster=true for a
// Cluster, more nodes as &addr=host:port) and checks that it answers. ctx bounds
// every call the store makes (see Connect). Errors name the host and port, never
// the password.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	s, err := Connect(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	pingCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := s.client.Ping(pingCtx).Err(); err != nil {
		s.stopBreaker()
		s.stopWatch()
		s.client.Close()
		return nil, fmt.Errorf("cannot reach Redis at %s: %v; start a redis-server there (redis-server --port PORT), or give the address of one that runs (--redis redis://HOST:PORT)", s.Addr, err)
	}
	return s, nil
}

// Connect is Open without the check that Redis answers: the client connects when
// first used, and reconnects after a failure, so lanes start unavailable and
// recover when a server appears (the UI uses it). Every call the store makes ends
// when ctx is done, at once, even one waiting on a Redis that does not answer,
// and every later call fails; a call also fails after callTimeout without an
// answer. Close still removes the run's keys, on a connection of its own.
func Connect(ctx context.Context, rawURL string) (*Store, error) {
	quietOnce.Do(func() { redis.SetLogger(quiet{}) })
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
		return nil, ErrURL
	}
	s := &Store{Addr: u.Host, ctx: ctx, conns: &liveConns{}}
	q := u.Query()
	if q.Get("cluster") == "true" {
		q.Del("cluster")
		u.RawQuery = q.Encode()
		opt, err := redis.ParseClusterURL(u.String())
		if err != nil {
			return nil, ErrURL
		}
		opt.MaxRetries, opt.DisableIdentity, opt.PoolSize = -1, true, poolSize
		opt.DialerRetries, opt.DialTimeout = 1, dialTimeout
		opt.ReadTimeout, opt.WriteTimeout, opt.ContextTimeoutEnabled = callTimeout, callTimeout, true
		base := redis.NewDialer(&redis.Options{DialTimeout: opt.DialTimeout, TLSConfig: opt.TLSConfig})
		plain := *opt
		plain.Dialer = base
		s.fresh = func() redis.UniversalClient { o := plain; return redis.NewClusterClient(&o) }
		opt.Dialer = s.conns.dial(base)
		s.cluster = redis.NewClusterClient(opt)
		s.client = s.cluster
	} else {
		opt, err := redis.ParseURL(rawURL)
		if err != nil {
			return nil, ErrURL
		}
		opt.MaxRetries, opt.DisableIdentity, opt.PoolSize = -1, true, poolSize
		opt.DialerRetries, opt.DialTimeout = 1, dialTimeout
		opt.ReadTimeout, opt.WriteTimeout, opt.ContextTimeoutEnabled = callTimeout, callTimeout, true
		base := redis.NewDialer(opt)
		plain := *opt
		plain.Dialer = base
		s.fresh = func() redis.UniversalClient { o := plain; return redis.NewClient(&o) }
		opt.Dialer = s.conns.dial(base)
		s.client = redis.NewClient(opt)
	}
	breakerCtx, stopBreaker := context.WithCancel(ctx) // Close stops a probe under way
	s.stopBreaker = stopBreaker
	s.breaker = &breaker{ctx: breakerCtx, ping: func(ctx context.Context) error {
		client := s.fresh()
		defer client.Close()
		return client.Ping(ctx).Err()
	}}
	s.client.AddHook(s.breaker)
	s.stopWatch = context.AfterFunc(ctx, s.conns.interrupt)
	id := make([]byte, 6)
	rand.Read(id)
	s.Prefix = "ratelab:" + hex.EncodeToString(id)
	return s, nil
}

// Script is the full text of the named script (the shared prelude and its own),
// as loaded into Redis: for redis-benchmark, or to read.
func Script(name string) string {
	common, _ := scriptFiles.ReadFile("scripts/common.lua")
	own, err := scriptFiles.ReadFile("scripts/" + name + ".lua")
	if err != nil {
		panic("redislua: no script " + name)
	}
	return string(common) + "\n" + string(own)
}

// Client is the Redis client, for callers that send their own commands under the
// prefix (the live benchmark).
func (s *Store) Client() redis.UniversalClient { return s.client }

// Key is the Redis key of a lane's key: {<prefix>:<lane>}:<key>.
func (s *Store) Key(lane, key string) string { return "{" + s.Prefix + ":" + lane + "}:" + key }

// conn returns a connection of its own for key (for WATCH, which is per
// connection): from the client, or from the cluster node holding the key's slot.
func (s *Store) conn(ctx context.Context, key string) (*redis.Conn, error) {
	if s.cluster == nil {
		return s.client.(*redis.Client).Conn(), nil
	}
	node, err := s.cluster.MasterForKey(ctx, key)
	if err != nil {
		return nil, err
	}
	return node.Conn(), nil
}

// forEachNode runs fn on every node of client that holds data: the server, or
// each master, concurrently.
func forEachNode(ctx context.Context, client redis.UniversalClient, fn func(context.Context, *redis.Client) error) error {
	if c, ok := client.(*redis.ClusterClient); ok {
		return c.ForEachMaster(ctx, fn)
	}
	return fn(ctx, client.(*redis.Client))
}

// Cleanup removes every key under the run's prefix, and only those: SCAN with the
// prefix as the pattern on every node that holds data, then UNLINK of each key
// found, one key per command (pipelined), since on a Cluster one command may
// not name keys of different slots. It returns how many it removed, and the
// first error it met on any node: a key it could not remove is reported, never
// passed over.
func (s *Store) Cleanup(ctx context.Context) (int, error) {
	return s.cleanup(ctx, s.client)
}

func (s *Store) cleanup(ctx context.Context, client redis.UniversalClient) (int, error) {
	own := "{" + s.Prefix + ":"
	return unlinkMatching(ctx, client, own+"*", func(key string) bool {
		return strings.HasPrefix(key, own) // the pattern's own characters may match more than the prefix
	})
}

// unlinkMatching removes, on every node that holds data, the keys a SCAN of
// pattern finds and keep accepts: UNLINK, one key per command (a Cluster's
// command may not name keys of different slots), pipelined 500 at a time. It
// returns how many Redis removed and the first error met on any node, naming
// the node.
func unlinkMatching(ctx context.Context, client redis.UniversalClient, pattern string, keep func(string) bool) (int, error) {
	var removed atomic.Int64 // the nodes are cleaned at once
	err := forEachNode(ctx, client, func(ctx context.Context, node *redis.Client) error {
		iter := node.Scan(ctx, 0, pattern, 1000).Iterator()
		var batch []string
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			pipe := node.Pipeline()
			cmds := make([]*redis.IntCmd, len(batch))
			for i, k := range batch {
				cmds[i] = pipe.Unlink(ctx, k)
			}
			pipe.Exec(ctx)
			batch = batch[:0]
			for _, c := range cmds {
				n, err := c.Result()
				if err != nil {
					return fmt.Errorf("%s: UNLINK: %w", node.Options().Addr, err)
				}
				removed.Add(n)
			}
			return nil
		}
		for iter.Next(ctx) {
			if !keep(iter.Val()) {
				continue
			}
			batch = append(batch, iter.Val())
			if len(batch) == 500 {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := iter.Err(); err != nil {
			return fmt.Errorf("%s: SCAN: %w", node.Options().Addr, err)
		}
		return flush()
	})
	return int(removed.Load()), err
}

// Close removes the run's keys and closes the connections. After the store's
// context is done (an interrupted run) the keys are removed on a connection of
// their own; either way it takes at most cleanupTimeout, and a failure is
// returned, saying that the keys expire by themselves.
func (s *Store) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	client := s.client
	if s.ctx.Err() != nil || s.breaker.down.Load() { // a connection that neither the interruption nor the breaker fails
		client = s.fresh()
		defer client.Close()
	}
	_, err := s.cleanup(ctx, client)
	s.stopBreaker()
	s.stopWatch()
	s.client.Close()
	if err != nil {
		return fmt.Errorf("the run's keys (%s:*) could not be removed from Redis at %s: %v; they expire within 24 hours (each has a PEXPIRE)", s.Prefix, s.Addr, err)
	}
	return nil
}

// ClusterNodes are the addresses of every node of the Redis Cluster at rawURL, as
// the cluster itself reports them (CLUSTER SLOTS), asked of its seed addresses
// (the URL's host, then each &addr=) in turn on a connection of its own: no node
// the cluster names is contacted. The caller checks the seeds first.
func ClusterNodes(ctx context.Context, rawURL string) ([]string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, ErrURL
	}
	q := u.Query()
	q.Del("cluster")
	u.RawQuery = q.Encode()
	opt, err := redis.ParseClusterURL(u.String())
	if err != nil {
		return nil, ErrURL
	}
	var last error
	for _, seed := range opt.Addrs {
		c := redis.NewClient(&redis.Options{Addr: seed, Username: opt.Username, Password: opt.Password, TLSConfig: opt.TLSConfig,
			DialTimeout: dialTimeout, ReadTimeout: callTimeout, WriteTimeout: callTimeout, MaxRetries: -1, DisableIdentity: true, ContextTimeoutEnabled: true})
		//lint:ignore SA1019 CLUSTER SLOTS is answered by Redis 6 too; CLUSTER SHARDS, its replacement, needs Redis 7
		slots, err := c.ClusterSlots(ctx).Result()
		c.Close()
		if err != nil {
			last = fmt.Errorf("CLUSTER SLOTS at %s: %v", seed, err)
			continue
		}
		var nodes []string
		for _, s := range slots {
			for _, n := range s.Nodes {
				if !slices.Contains(nodes, n.Addr) {
					nodes = append(nodes, n.Addr)
				}
			}
		}
		return nodes, nil
	}
	return nil, last
}
