// Package conformance holds tests, and only tests, of the promises the limiters
// make (algorithms and algorithms/redislua) that one package alone cannot check:
//
//   - steps_test.go, edges_test.go: decisions at fixed instants, run on every
//     backend (in memory, and as Lua on a real redis-server), so memory and Redis
//     are held to the same table;
//   - properties_test.go: on seeded random traces, every algorithm on both
//     backends honours its RetryAfter to the microsecond, never reports a negative
//     Remaining without reservations, and reports headers that agree with Check;
//   - peers_test.go, peers_redis_test.go: differential tests against the libraries
//     whose semantics a lane claims (golang.org/x/time/rate,
//     github.com/throttled/throttled/v2, github.com/go-redis/redis_rate/v10 on its
//     own Lua, github.com/juju/ratelimit, go.uber.org/ratelimit), with the
//     parameters mapped as docs/peers.md says and every legitimate difference
//     named and checked to be exactly that;
//   - realserver_test.go, realserver_nginx_test.go, realserver_haproxy_test.go:
//     the product lanes against the real nginx and HAProxy
//     (internal/realserver): seeded concurrent traffic sent to the server, its
//     decisions and the instants of its own clock read back from its log and
//     replayed through the lane, every decision compared (the full run only).
//
// The peers are test-only dependencies: nothing outside this package imports them.
package conformance
