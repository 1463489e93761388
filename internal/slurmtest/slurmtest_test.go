package slurmtest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCluster starts one cluster and runs real jobs on it: an array whose tasks
// each write a part and a job that merges them once all have completed; an array
// with a failing task, which Wait must report (and a job after it that never runs);
// a job that outlasts Wait's timeout.
func TestCluster(t *testing.T) {
	begin := time.Now()
	c := Start(t)
	t.Logf("cluster idle after %v (node %s, slurmctld :%d, slurmd :%d)", time.Since(begin).Round(time.Millisecond), c.Node(), c.CtldPort, c.SlurmdPort)

	t.Run("array and dependency", func(t *testing.T) {
		begin := time.Now()
		parts := c.Submit(t, "--array=0-2", "--output=/dev/null",
			"--wrap", "echo part $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_COUNT > out-$SLURM_ARRAY_TASK_ID.txt")
		merge := c.Submit(t, "--dependency=afterok:"+parts, "--output=merge.log",
			"--wrap", "cat out-0.txt out-1.txt out-2.txt > merged.txt")
		c.Wait(t, parts, 30*time.Second)
		c.Wait(t, merge, 30*time.Second)
		t.Logf("array of 3 and its merge done in %v", time.Since(begin).Round(time.Millisecond))
		got, err := os.ReadFile(filepath.Join(c.Dir(), "merged.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if want := "part 0 of 3\npart 1 of 3\npart 2 of 3\n"; string(got) != want {
			t.Errorf("merged.txt = %q, want %q", got, want)
		}
		tasks, err := c.Tasks(parts)
		if err != nil {
			t.Fatal(err)
		}
		if len(tasks) != 3 {
			t.Errorf("the array has %d tasks, want 3: %+v", len(tasks), tasks)
		}
	})

	t.Run("a failed task fails Wait", func(t *testing.T) {
		begin := time.Now()
		parts := c.Submit(t, "--array=0-2", "--output=fail-%a.out",
			"--wrap", `if [ "$SLURM_ARRAY_TASK_ID" = 1 ]; then echo task one gives up >&2; exit 3; fi; echo fine`)
		after := c.Submit(t, "--dependency=afterok:"+parts, "--wrap", "echo must not run > never.txt")
		err := c.WaitErr(parts, 30*time.Second)
		var je *JobError
		if !errors.As(err, &je) || je.Why != "failed" {
			t.Fatalf("WaitErr = %v, want a JobError saying the job failed", err)
		}
		states := map[string]string{}
		for _, task := range je.Tasks {
			states[task.ID] = task.State + " " + task.ExitCode
		}
		want := map[string]string{parts + "_0": "COMPLETED 0:0", parts + "_1": "FAILED 3:0", parts + "_2": "COMPLETED 0:0"}
		for id, s := range want {
			if states[id] != s {
				t.Errorf("task %s: %q, want %q (all: %v)", id, states[id], s, states)
			}
		}
		msg := err.Error()
		for _, s := range []string{parts + "_1: FAILED (exit code 3:0", "task one gives up", "fail-1.out"} {
			if !strings.Contains(msg, s) {
				t.Errorf("Wait's message lacks %q:\n%s", s, msg)
			}
		}
		t.Logf("Wait's message:\n%s", msg)

		// The job after it stays PENDING (DependencyNeverSatisfied): a failure,
		// reported well before the timeout.
		err = c.WaitErr(after, 30*time.Second)
		if !errors.As(err, &je) || !strings.HasPrefix(je.Why, "never runs") {
			t.Fatalf("WaitErr of the dependent job = %v, want a JobError saying it never runs", err)
		}
		if _, err := os.Stat(filepath.Join(c.Dir(), "never.txt")); err == nil {
			t.Error("the dependent job ran")
		}
		t.Logf("failure seen in %v: %v", time.Since(begin).Round(time.Millisecond), err)
	})

	t.Run("timeout", func(t *testing.T) {
		job := c.Submit(t, "--output=/dev/null", "--wrap", "sleep 60")
		begin := time.Now()
		err := c.WaitErr(job, 500*time.Millisecond)
		var je *JobError
		if !errors.As(err, &je) || !strings.HasPrefix(je.Why, "not done after") {
			t.Fatalf("WaitErr = %v, want a JobError saying the job is not done", err)
		}
		if d := time.Since(begin); d > 5*time.Second {
			t.Errorf("WaitErr took %v with a timeout of 500ms", d)
		}
		if out, err := c.Command("scancel", job).CombinedOutput(); err != nil {
			t.Fatalf("scancel %s: %v\n%s", job, err, out)
		}
	})
}

// TestParseTasks reads scontrol's one-line records, values with spaces included.
func TestParseTasks(t *testing.T) {
	out := "JobId=7 ArrayJobId=6 ArrayTaskId=1 JobName=wrap JobState=FAILED Reason=NonZeroExitCode Dependency=(null) ExitCode=3:0 WorkDir=/tmp/a b StdErr=/tmp/a b/x.err StdIn=/dev/null StdOut=/tmp/a b/x.out Power=\n" +
		"JobId=8 ArrayJobId=6 ArrayTaskId=2-3 JobState=PENDING Reason=Dependency ExitCode=0:0\n" +
		"JobId=9 JobName=merge JobState=PENDING Reason=DependencyNeverSatisfied ExitCode=0:0\n"
	got := parseTasks(out)
	want := []Task{
		{ID: "6_1", State: "FAILED", Reason: "NonZeroExitCode", ExitCode: "3:0", StdOut: "/tmp/a b/x.out", StdErr: "/tmp/a b/x.err"},
		{ID: "6_2-3", State: "PENDING", Reason: "Dependency", ExitCode: "0:0"},
		{ID: "9", State: "PENDING", Reason: "DependencyNeverSatisfied", ExitCode: "0:0"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d tasks, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("task %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if got[0].Final() != true || got[1].Final() || got[1].Never() || !got[2].Never() {
		t.Errorf("Final/Never wrong: %+v", got)
	}
}
