package redislua

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// pipelineChunk is the most calls sent in one pipeline. A pipeline's replies are
// read under one deadline (callTimeout), so a batch of thousands of calls — a
// herd retrying at one instant — is sent as several pipelines of at most
// pipelineChunk, one after another: each has the whole deadline, a slow but
// answering Redis (a loaded machine) does not turn into store errors that would
// change the run, and a Redis that stops answering is still found within
// callTimeout. The chunks go in order, each after the one before has been
// answered, so Redis runs the calls in the batch's order, as one pipeline would.
const pipelineChunk = 256

// pipelined sends n calls in chunks of at most pipelineChunk: add queues call i
// on the pipeline. The errors are the calls' own (each command keeps its error).
func pipelined(ctx context.Context, client redis.UniversalClient, n int, add func(pipe redis.Pipeliner, i int)) {
	for start := 0; start < n; start += pipelineChunk {
		pipe := client.Pipeline()
		for i := start; i < min(n, start+pipelineChunk); i++ {
			add(pipe, i)
		}
		pipe.Exec(ctx)
	}
}
