package slurmtest

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Submit runs sbatch --parsable --chdir=Dir args... on the cluster and returns the
// job's id; it fails t with sbatch's output when sbatch fails.
func (c *Cluster) Submit(t testing.TB, args ...string) string {
	t.Helper()
	id, err := c.SubmitErr(args...)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// SubmitErr is Submit returning sbatch's failure as an error.
func (c *Cluster) SubmitErr(args ...string) (string, error) {
	args = append([]string{"--parsable", "--chdir=" + c.Dir()}, args...)
	cmd := c.Command("sbatch", args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("sbatch %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	// --parsable prints "id" or "id;cluster" as its last line.
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	id, _, _ := strings.Cut(strings.TrimSpace(lines[len(lines)-1]), ";")
	if !jobIDPattern.MatchString(id) {
		return "", fmt.Errorf("sbatch %s printed no job id:\n%s%s", strings.Join(args, " "), stdout.String(), stderr.String())
	}
	return id, nil
}

var jobIDPattern = regexp.MustCompile(`^[0-9]+$`)

// Task is one job, or one task of a job array, as scontrol shows it.
type Task struct {
	ID       string // "12", or "12_0" for task 0 of array job 12 ("12_[1-2]" while pending)
	State    string // JobState: PENDING, RUNNING, COMPLETED, FAILED, ...
	Reason   string // why it is pending or ended: None, Dependency, NonZeroExitCode, ...
	ExitCode string // its script's exit code and the signal that ended it: "0:0"
	StdOut   string // the path of its output file
	StdErr   string // the path of its error file (StdOut unless set apart)
}

// finalStates are the job states that do not change any more.
var finalStates = map[string]bool{
	"COMPLETED": true, "FAILED": true, "CANCELLED": true, "TIMEOUT": true,
	"NODE_FAIL": true, "PREEMPTED": true, "BOOT_FAIL": true, "DEADLINE": true,
	"OUT_OF_MEMORY": true,
}

// Final says the task will not change state any more.
func (t Task) Final() bool { return finalStates[t.State] }

// Never says the task will never run: it waits on a dependency that failed (Slurm
// leaves such a job PENDING, unless kill_invalid_depend is set).
func (t Task) Never() bool {
	return t.State == "PENDING" && t.Reason == "DependencyNeverSatisfied"
}

// Tasks is what scontrol show job -o says of the job: one Task a line, which for
// an array job is every task (its pending tasks may share one line).
func (c *Cluster) Tasks(jobID string) ([]Task, error) {
	out, err := c.run("scontrol", "show", "job", "-o", jobID)
	if err != nil {
		return nil, err
	}
	tasks := parseTasks(out)
	if len(tasks) == 0 {
		return nil, fmt.Errorf("scontrol show job -o %s shows no job:\n%s", jobID, out)
	}
	return tasks, nil
}

// fieldPattern finds the start of each Key= of a scontrol -o line.
var fieldPattern = regexp.MustCompile(`(?:^|\s)([A-Za-z][A-Za-z0-9_:/]*)=`)

// parseTasks reads scontrol's one-line records (a value may hold spaces: it runs
// until the next " Key=").
func parseTasks(out string) []Task {
	var tasks []Task
	for _, line := range strings.Split(out, "\n") {
		f := fields(line)
		if f["JobId"] == "" {
			continue
		}
		id := f["JobId"]
		if task := f["ArrayTaskId"]; task != "" {
			id = f["ArrayJobId"] + "_" + task
		}
		tasks = append(tasks, Task{ID: id, State: f["JobState"], Reason: f["Reason"],
			ExitCode: f["ExitCode"], StdOut: f["StdOut"], StdErr: f["StdErr"]})
	}
	return tasks
}

// fields is a scontrol -o line's keys and values.
func fields(line string) map[string]string {
	f := map[string]string{}
	idx := fieldPattern.FindAllStringSubmatchIndex(line, -1)
	for i, m := range idx {
		end := len(line)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		key := line[m[2]:m[3]]
		if _, seen := f[key]; !seen {
			f[key] = strings.TrimSpace(line[m[1]:end])
		}
	}
	return f
}

// JobError is Wait's failure: the job's tasks as last seen, and why.
type JobError struct {
	JobID string
	Why   string // "failed", "never runs" or "not done after 30s"
	Tasks []Task
}

func (e *JobError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "slurm job %s %s:", e.JobID, e.Why)
	for _, t := range e.Tasks {
		fmt.Fprintf(&b, "\n  %s: %s (exit code %s, reason %s)", t.ID, t.State, t.ExitCode, t.Reason)
		if t.State == "COMPLETED" || t.State == "PENDING" {
			continue
		}
		files := []string{t.StdOut}
		if t.StdErr != "" && t.StdErr != t.StdOut {
			files = append(files, t.StdErr)
		}
		for _, path := range files {
			if path != "" {
				fmt.Fprintf(&b, "\n    tail of %s:\n%s", path, indent(tailFile(path, 10), "      "))
			}
		}
	}
	return b.String()
}

// indent puts prefix before each line of s, and drops its last newline.
func indent(s, prefix string) string {
	s = strings.TrimSuffix(s, "\n")
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// Wait waits until every task of the job is in a final state, and fails t unless
// each COMPLETED: when one did not, when one waits on a dependency that failed, or
// after timeout; the failure shows each task's state, exit code and the tail of
// its output file.
func (c *Cluster) Wait(t testing.TB, jobID string, timeout time.Duration) {
	t.Helper()
	if err := c.WaitErr(jobID, timeout); err != nil {
		t.Fatal(err)
	}
}

// WaitErr is Wait returning the failure, a *JobError when the job did not
// complete (or an error of scontrol's when it cannot say).
func (c *Cluster) WaitErr(jobID string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var tasks []Task
	for {
		var err error
		tasks, err = c.Tasks(jobID)
		if err != nil && strings.Contains(err.Error(), "Invalid job id") {
			return err
		}
		if err == nil {
			if never := anyTask(tasks, Task.Never); never {
				return &JobError{JobID: jobID, Why: "never runs (a dependency failed)", Tasks: tasks}
			}
			if done := !anyTask(tasks, func(t Task) bool { return !t.Final() }); done {
				if anyTask(tasks, func(t Task) bool { return t.State != "COMPLETED" }) {
					return &JobError{JobID: jobID, Why: "failed", Tasks: tasks}
				}
				return nil
			}
		}
		if time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("slurm job %s: not done after %v: %v", jobID, timeout, err)
			}
			return &JobError{JobID: jobID, Why: fmt.Sprintf("not done after %v", timeout), Tasks: tasks}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// anyTask says whether f holds for one of the tasks.
func anyTask(tasks []Task, f func(Task) bool) bool {
	for _, t := range tasks {
		if f(t) {
			return true
		}
	}
	return false
}
