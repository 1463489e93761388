package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"ratelab/internal/tracegen"
)

// k8sJob is what of a Kubernetes Job the test runs: its name, whether it is
// Indexed and its completions, and its container's command and arguments.
type k8sJob struct {
	Metadata struct{ Name string }
	Spec     struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int
		Template       struct {
			Spec struct {
				Containers []struct {
					Command, Args []string
				}
			}
		}
	}
}

// The Jobs tune --emit k8s-job writes do what they say: run here as the Job
// controller would run them — each document in order, an Indexed Job's pods
// once for every index with JOB_COMPLETION_INDEX set and $(JOB_COMPLETION_INDEX)
// expanded in its arguments (and $$ as $), the claim a folder — they merge the
// report a single run over the same parts prints, byte for byte. (That the
// YAML is a Job the API accepts is internal/k8scheck's test.)
func TestEmittedKubernetesJobsSweepAsOneRun(t *testing.T) {
	sequentialOnly(t)
	mount := t.TempDir()
	var log bytes.Buffer
	if _, err := tracegen.Write(&log, tracegen.Spec{Start: time.Date(2026, 3, 2, 6, 13, 27, 0, time.UTC), Duration: time.Hour, Seed: 3,
		Users: 80, Visits: 0.5, VisitPages: 5, PageGap: 20 * time.Second, FeedReaders: 2, FeedEvery: 5 * time.Second,
		Scrapers: 1, ScraperRate: 30, ScraperBurst: 3 * time.Second, ScraperEvery: time.Hour, Slowest: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	run := func(env []string, args ...string) string {
		t.Helper()
		return string(ratelabIn(t, mount, log.Bytes(), env, args...))
	}
	for _, d := range []string{"logs", "work"} {
		if err := os.Mkdir(filepath.Join(mount, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run(nil, "tune", "split", "--parts", "5", "--out", "logs/day one")
	manifest := run(nil, "tune", "--emit", "k8s-job", "--image", "example/ratelab", "--claim", "logs", "--mount", mount,
		"--trace", "logs/day one", "--parts", "3", "--points", "3", "--holdout", "-1s", "--goal", "abuse")
	dec := yaml.NewDecoder(strings.NewReader(manifest))
	var report string
	var names []string
	for {
		var job k8sJob
		if err := dec.Decode(&job); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if job.Metadata.Name == "" {
			continue // the header's comments
		}
		names = append(names, job.Metadata.Name)
		c := job.Spec.Template.Spec.Containers[0]
		if len(c.Command) != 1 || c.Command[0] != "ratelab" {
			t.Fatalf("%s runs %q, not ratelab", job.Metadata.Name, c.Command)
		}
		pods := 1
		if job.Spec.CompletionMode == "Indexed" {
			pods = job.Spec.Completions
		}
		for k := range pods {
			var env []string
			args := c.Args
			if job.Spec.CompletionMode == "Indexed" {
				env = []string{fmt.Sprint("JOB_COMPLETION_INDEX=", k)}
				args = nil
				for _, a := range c.Args {
					a = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", fmt.Sprint(k))
					args = append(args, strings.ReplaceAll(a, "$$", "$"))
				}
			}
			report = run(env, args...)
		}
	}
	if want := []string{"ratelab-tune-scan", "ratelab-tune-plan", "ratelab-tune-sweep", "ratelab-tune-pairs-plan", "ratelab-tune-pairs", "ratelab-tune-merge"}; strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("the Jobs are %v, want %v", names, want)
	}
	one := run(nil, "tune", "--trace", filepath.Join(mount, "logs/day one"), "--points", "3", "--holdout", "-1s", "--goal", "abuse", "--verbose", "--csv", "one.csv", "--json", "one.json")
	read := func(name string) []byte { return []byte(mustRead(t, filepath.Join(mount, name))) }
	if !bytes.Equal(read("work/report.csv"), read("one.csv")) {
		t.Error("the CSV the Jobs merged differs from one run's")
	}
	if !bytes.Equal(jsonWithout(t, read("work/report.json"), "answer"), jsonWithout(t, read("one.json"), "answer")) {
		t.Error("the JSON the Jobs merged differs from one run's")
	}
	if i := strings.Index(one, "The sweep in full:"); i < 0 || one[i:] != report {
		t.Errorf("the table the Jobs merged differs from one run's:\n%s", report)
	}
}

// docs/distributed-tune.md's shell recipe runs as written, on a generated log,
// and its check — one run over the same parts, compared with cmp — passes.
func TestDistributedTuneShellRecipe(t *testing.T) {
	sequentialOnly(t)
	bin := builtRatelab(t)
	section := docSection(t, "docs/distributed-tune.md", "## A shell, one machine")
	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	for _, block := range strings.Split(section, "```sh\n")[1:] {
		code, _, _ := strings.Cut(block, "```")
		script.WriteString(code)
	}
	if !strings.Contains(script.String(), "tune merge --pairs") || !strings.Contains(script.String(), "cmp report.csv one.csv") {
		t.Fatalf("the recipe is not the one this test runs:\n%s", script.String())
	}
	dir := t.TempDir()
	var log bytes.Buffer
	if _, err := tracegen.Write(&log, tracegen.Spec{Start: time.Date(2026, 3, 2, 6, 13, 27, 0, time.UTC), Duration: time.Hour, Seed: 4,
		Users: 60, Visits: 0.5, VisitPages: 5, PageGap: 20 * time.Second, Scrapers: 1, ScraperRate: 30, ScraperBurst: 3 * time.Second,
		ScraperEvery: time.Hour, Slowest: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "access.log"), log.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the recipe failed: %v\n%s", err, out)
	}
}

// The contract for engines that pipe (Spark's pipe, ClickHouse's executable
// functions, a shell): each part on standard input, its part number passed in
// (RATELAB_PART), the summary and the partial on standard output; the merge
// of those is the report one run over the parts prints.
func TestTuneStagesThroughPipes(t *testing.T) {
	sequentialOnly(t)
	dir := t.TempDir()
	var log bytes.Buffer
	if _, err := tracegen.Write(&log, tracegen.Spec{Start: time.Date(2026, 3, 2, 6, 13, 27, 0, time.UTC), Duration: time.Hour, Seed: 6,
		Users: 60, Visits: 0.5, VisitPages: 5, PageGap: 20 * time.Second, Scrapers: 1, ScraperRate: 30, ScraperBurst: 3 * time.Second,
		ScraperEvery: time.Hour, Slowest: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	run := func(stdin []byte, env []string, args ...string) []byte {
		t.Helper()
		return ratelabIn(t, dir, stdin, env, args...)
	}
	write := func(name string, b []byte) string {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	run(log.Bytes(), nil, "tune", "split", "--parts", "3", "--out", "parts")
	const n = 3
	part := func(k int) []byte {
		return []byte(mustRead(t, filepath.Join(dir, "parts", fmt.Sprintf("part-%05d.log.gz", k))))
	}
	stage := func(prefix string, args ...string) []string {
		var files []string
		for k := range n {
			out := run(part(k), []string{fmt.Sprintf("RATELAB_PART=%d/%d", k, n)}, append([]string{"tune"}, args...)...)
			files = append(files, write(fmt.Sprintf("%s-%d.json", prefix, k), out))
		}
		return files
	}
	// a stream has no name to tell its format by: it is given, to every stage
	// and to the run compared with, as the recipe says
	scans := stage("scan", "scan", "--name", "parts", "--format", "clf")
	write("plan.json", run(nil, nil, append([]string{"tune", "plan", "--holdout", "-1s", "--points", "3"}, scans...)...))
	partials := stage("partial", "sweep", "--plan", "plan.json", "--format", "clf")
	write("pairs.json", run(nil, nil, append([]string{"tune", "merge", "--pairs", "-"}, partials...)...))
	pairs := stage("pairs", "sweep", "--plan", "pairs.json", "--format", "clf")
	report := string(run(nil, nil, append([]string{"tune", "merge", "--csv", "merged.csv"}, pairs...)...))
	one := string(run(nil, nil, "tune", "--trace", "parts", "--format", "clf", "--holdout", "-1s", "--points", "3", "--verbose", "--csv", "one.csv"))
	if mustRead(t, filepath.Join(dir, "merged.csv")) != mustRead(t, filepath.Join(dir, "one.csv")) {
		t.Error("the CSV merged from pipes differs from one run's")
	}
	if i := strings.Index(one, "The sweep in full:"); i < 0 || one[i:] != report {
		t.Errorf("the table merged from pipes differs from one run's:\n%s", report)
	}
}

// ratelabIn runs the built binary with args in dir, stdin on its standard
// input and env added to the environment, and returns its standard output; a
// failure fails the test with its standard error.
func ratelabIn(t *testing.T, dir string, stdin []byte, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(builtRatelab(t), args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, append(os.Environ(), env...), bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ratelab %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}
