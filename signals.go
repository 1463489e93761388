package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"ratelab/internal/atomicdir"
	"ratelab/internal/atomicfile"
	"ratelab/tune"
)

// cleanupGrace is how long a command has, after a signal, to stop and clean up
// (remove its Redis keys, which takes at most 2 s, and its temporary files)
// before the process removes its temporary files and exits by itself.
const cleanupGrace = 5 * time.Second

// working is set once a command's work, which answers to its context, begins
// (see startWork). Before that a command is reading its input (a scenario, a
// trace, perhaps a FIFO nobody writes), where nothing answers to a context and
// nothing needs cleaning up: a signal then ends the process at once.
var working atomic.Bool

// startWork says the command now answers to its context: a signal from here on
// cancels it and waits for it to clean up (within cleanupGrace).
func startWork() { working.Store(true) }

// interrupted is the cause of a context cancelled by a signal.
type interrupted struct{ sig os.Signal }

func (i interrupted) Error() string {
	if s, ok := i.sig.(syscall.Signal); ok {
		return "interrupted by " + signalName(s)
	}
	return "interrupted by " + i.sig.String()
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT (Ctrl-C)"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP (the terminal closed)"
	}
	return s.String()
}

// removeTemporary removes what the command wrote that is not yet in place: its
// outputs' temporary files and folders, and a trace spilled to disk (tune, run
// and tui --trace), for a process about to exit on a signal.
func removeTemporary() {
	atomicfile.RemoveTemporary()
	atomicdir.RemoveTemporary()
	tune.RemoveTemporary()
}

// interrupts returns a context that SIGINT, SIGTERM or SIGHUP cancels, with an
// interrupted as its cause, so that a command stops, removes its Redis keys and
// temporary files, and returns; stop releases the signals. Call it first thing,
// so that no signal finds the default action (an exit with nothing said); a
// signal before startWork exits at once, saying so, unless an output was put in
// place already (then the command ends as it would have, saying what it
// wrote). Should the command not return within cleanupGrace of the signal (it
// waits where nothing can interrupt it, such as opening a FIFO nobody reads),
// or should a second signal come, the temporary files are removed here and the
// process exits with 1.
func interrupts() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		var sig os.Signal
		select {
		case sig = <-sigs:
		case <-done:
			return
		}
		if !working.Load() {
			removeTemporary() // after it, no output is committed
			if !atomicdir.Committed() && !atomicfile.Committed() {
				fmt.Fprintf(os.Stderr, "ratelab: %v while reading the input; nothing was written\n", interrupted{sig})
				os.Exit(1)
			}
			// an output was put in place before the signal (tune split's
			// folder, its work done): the command only says what it wrote, so
			// it ends as it would have, below
		}
		cancel(interrupted{sig})
		select {
		case <-done:
			return
		case <-sigs:
		case <-time.After(cleanupGrace):
		}
		removeTemporary()
		fmt.Fprintf(os.Stderr, "ratelab: %v; stopped without finishing the clean-up (temporary files removed; Redis keys, if any, expire within 24 hours)\n", interrupted{sig})
		os.Exit(1)
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}
