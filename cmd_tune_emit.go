package main

import (
	"flag"
	"fmt"
	"io"
	"slices"

	"ratelab/emit"
)

const tuneEmitUsage = `
Usage: ratelab tune --emit k8s-job --image IMAGE --claim PVC --trace DIR --parts N
                    [--stage scan|plan|sweep|pairs-plan|pairs|merge] [--prefix NAME]
                    [--work DIR] [--mount PATH] [--parallelism N] [--pod-cpu Q] [--pod-memory Q]
                    [--workers N] [--memory MiB] [--ttl SECONDS] [--single]
                    [the sweep's flags: --points, --goal, …] [the log's: --key, --format, …]

Writes the Kubernetes Jobs that sweep a log partitioned by key (DIR, relative to
the claim's mount) in N parts: the map stages (tune scan, tune sweep) as Indexed
Jobs, each pod's part its JOB_COMPLETION_INDEX, a failed pod retried with its
index; the reduce stages (tune plan, tune merge) as Jobs of one pod. Kubernetes
orders no Job after another: the YAML's first lines say how to apply them one
stage after the other. The sweep's flags go to tune plan, the log's (--key,
--format, …) to every stage that reads it, --periods to the scan too, --workers
and --memory to the sweeps. Create the work folder on the claim before the
first Job: ratelab writes into it and makes no folder.`

// runTuneEmit is ratelab tune --emit ENGINE: what runs the partitioned sweep on
// an engine.
func runTuneEmit(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tune --emit", tuneEmitUsage, stderr)
	var engine string
	var o emit.K8sOptions
	fs.StringVar(&engine, "emit", "", "the `ENGINE` to write for: k8s-job (Kubernetes Indexed Jobs)")
	fs.StringVar(&o.Image, "image", "", "the container `IMAGE` holding ratelab")
	fs.StringVar(&o.Claim, "claim", "", "the PersistentVolumeClaim (`NAME`) every pod mounts, holding the log's parts and the stages' files")
	fs.StringVar(&o.Trace, "trace", "", "the folder of the log's parts, `DIR`, relative to --mount")
	fs.IntVar(&o.Parts, "parts", 0, "how many parts (`N`) the log is swept in: a map stage's pods")
	fs.StringVar(&o.Stage, "stage", "", "write one `STAGE` only (scan, plan, sweep, pairs-plan, pairs or merge)")
	fs.StringVar(&o.Prefix, "prefix", "", "the Jobs' names start with `NAME` (default ratelab-tune)")
	fs.StringVar(&o.Work, "work", "", "the stages' folder, `DIR`, relative to --mount (default work)")
	fs.StringVar(&o.Mount, "mount", "", "where the claim is mounted, `PATH` (default /data)")
	fs.IntVar(&o.Parallelism, "parallelism", 0, "the most pods of a map stage at once, `N` (default: --parts)")
	fs.StringVar(&o.CPU, "pod-cpu", "", "each pod's CPU request, a `QUANTITY` (default 2)")
	fs.StringVar(&o.Memory, "pod-memory", "", "each pod's memory request, a `QUANTITY` (default 4Gi)")
	fs.IntVar(&o.TTL, "ttl", 0, "`SECONDS` a finished Job is kept (default a day; below 0 until deleted)")
	var workers, memoryMB int
	fs.IntVar(&workers, "workers", 0, "policies a sweep pod replays at once, `N` (default: every core the pod sees)")
	fs.IntVar(&memoryMB, "memory", 0, "`MiB` a sweep pod's requests may take in memory before spilling to disk (default 512; keep it below --pod-memory)")
	var sweep tuneOptions
	sweep.sweepFlags(fs)
	// the flags the log is read with, tune's own (but --trace, the parts'
	// folder on the claim here)
	var read traceOptions
	readFS := flag.NewFlagSet("read", flag.ContinueOnError)
	read.flags(readFS, true, true)
	readFS.VisitAll(func(f *flag.Flag) {
		if f.Name != "trace" {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	})
	read.file = "-"
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if engine != "k8s-job" {
		return usagef("tune --emit: %q is no engine ratelab writes for; give --emit k8s-job", engine)
	}
	// the sweep's flags, as given, go to tune plan; checked here as tune plan
	// will check them
	fs.Visit(func(f *flag.Flag) {
		sweep.algorithmsGiven = sweep.algorithmsGiven || f.Name == "algorithms"
		sweep.shareGiven = sweep.shareGiven || f.Name == "share"
		sweep.headroomGiven = sweep.headroomGiven || f.Name == "headroom"
	})
	if _, err := sweep.sweep(nil); err != nil {
		return err
	}
	if _, err := read.options("tune --emit"); err != nil {
		return err
	}
	own := []string{"emit", "image", "claim", "trace", "parts", "stage", "prefix", "work", "mount", "parallelism", "pod-cpu", "pod-memory", "ttl"}
	readFlags := []string{"format", "key", "exclude", "time-field", "time-format", "cost-field", "reorder-window", "spread", "strict", "seed"}
	fs.Visit(func(f *flag.Flag) {
		arg := fmt.Sprintf("--%s=%s", f.Name, f.Value)
		switch {
		case slices.Contains(own, f.Name):
		case f.Name == "single":
			o.Single = sweep.single
		case f.Name == "workers" || f.Name == "memory":
			o.WorkerArgs = append(o.WorkerArgs, arg)
		case slices.Contains(readFlags, f.Name):
			o.ReadArgs = append(o.ReadArgs, arg)
		case f.Name == "periods" || f.Name == "period":
			// a period other than the standard ones is measured by the scan
			o.ScanArgs = append(o.ScanArgs, "--periods="+f.Value.String())
			o.SweepArgs = append(o.SweepArgs, arg)
		default:
			o.SweepArgs = append(o.SweepArgs, arg)
		}
	})
	if workers < 0 || memoryMB < 0 {
		return usagef("tune --emit: --workers and --memory must be >= 0")
	}
	yaml, err := emit.K8sJob(o)
	if err != nil {
		return usagef("tune --emit k8s-job: %v", err)
	}
	_, err = io.WriteString(stdout, yaml)
	return err
}
