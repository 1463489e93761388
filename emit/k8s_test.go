package emit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"ratelab/internal/check"
)

// base is a valid pipeline of n parts.
func base(n int) K8sOptions {
	return K8sOptions{Parts: n, Image: "registry.example/ratelab:1", Claim: "tune-logs", Trace: "logs/2026-08"}
}

// jobs decodes every document of out, refusing a field the Jobs do not write.
func jobs(t *testing.T, out string) []job {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(out))
	dec.KnownFields(true)
	var js []job
	for {
		var j job
		err := dec.Decode(&j)
		if errors.Is(err, io.EOF) {
			return js
		}
		if err != nil {
			t.Fatalf("document %d: %v\n%s", len(js)+1, err, out)
		}
		js = append(js, j)
	}
}

func write(t *testing.T, o K8sOptions) []job {
	t.Helper()
	out, err := K8sJob(o)
	if err != nil {
		t.Fatal(err)
	}
	return jobs(t, out)
}

// files is WORK/name-0.json … for n parts.
func files(name string, n int) []string {
	var fs []string
	for k := range n {
		fs = append(fs, fmt.Sprintf("/data/work/%s-%d.json", name, k))
	}
	return fs
}

func TestSixStages(t *testing.T) {
	const n = 4
	js := write(t, base(n))
	idx := "$(JOB_COMPLETION_INDEX)"
	want := []struct {
		name   string
		mapped bool
		args   []string
	}{
		{"ratelab-tune-scan", true, []string{"tune", "scan", "--trace", "/data/logs/2026-08", "--parts", "4", "--out", "/data/work/scan-" + idx + ".json"}},
		{"ratelab-tune-plan", false, append([]string{"tune", "plan", "--out", "/data/work/plan.json"}, files("scan", n)...)},
		{"ratelab-tune-sweep", true, []string{"tune", "sweep", "--plan", "/data/work/plan.json", "--trace", "/data/logs/2026-08", "--parts", "4", "--out", "/data/work/partial-" + idx + ".json"}},
		{"ratelab-tune-pairs-plan", false, append([]string{"tune", "merge", "--pairs", "/data/work/pairs.json"}, files("partial", n)...)},
		{"ratelab-tune-pairs", true, []string{"tune", "sweep", "--plan", "/data/work/pairs.json", "--trace", "/data/logs/2026-08", "--parts", "4", "--out", "/data/work/pairs-" + idx + ".json"}},
		{"ratelab-tune-merge", false, append([]string{"tune", "merge", "--csv", "/data/work/report.csv", "--json", "/data/work/report.json"}, files("pairs", n)...)},
	}
	if len(js) != len(want) {
		t.Fatalf("%d documents, want %d", len(js), len(want))
	}
	for i, w := range want {
		j, s := js[i], js[i].Spec
		if j.APIVersion != "batch/v1" || j.Kind != "Job" || j.Metadata.Name != w.name {
			t.Errorf("document %d: %s %s %q, want batch/v1 Job %q", i+1, j.APIVersion, j.Kind, j.Metadata.Name, w.name)
		}
		if len(s.Template.Spec.Containers) != 1 {
			t.Fatalf("%s: %d containers", w.name, len(s.Template.Spec.Containers))
		}
		c, pod := s.Template.Spec.Containers[0], s.Template.Spec
		if !slices.Equal(c.Command, []string{"ratelab"}) || !slices.Equal(c.Args, w.args) {
			t.Errorf("%s: runs %q %q, want ratelab %q", w.name, c.Command, c.Args, w.args)
		}
		if pod.RestartPolicy != "Never" || c.Image != "registry.example/ratelab:1" {
			t.Errorf("%s: restartPolicy %q, image %q", w.name, pod.RestartPolicy, c.Image)
		}
		if len(pod.Volumes) != 1 || pod.Volumes[0].PersistentVolumeClaim.ClaimName != "tune-logs" ||
			len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != pod.Volumes[0].Name || c.VolumeMounts[0].MountPath != "/data" {
			t.Errorf("%s: volumes %+v mounted %+v, want the claim tune-logs at /data", w.name, pod.Volumes, c.VolumeMounts)
		}
		if c.Resources.Requests["cpu"] != "2" || c.Resources.Requests["memory"] != "4Gi" {
			t.Errorf("%s: requests %v", w.name, c.Resources.Requests)
		}
		if s.TTLSecondsAfterFinished == nil || *s.TTLSecondsAfterFinished != day {
			t.Errorf("%s: ttlSecondsAfterFinished %v, want a day", w.name, s.TTLSecondsAfterFinished)
		}
		if !w.mapped {
			if s.CompletionMode != "" || s.Completions != 1 || s.Parallelism != 1 || s.BackoffLimitPerIndex != nil || s.MaxFailedIndexes != nil || len(c.Env) != 0 {
				t.Errorf("%s: a reduce stage is one plain completion: %+v, env %+v", w.name, s, c.Env)
			}
			if s.BackoffLimit == nil || *s.BackoffLimit != RetriesPerPart {
				t.Errorf("%s: backoffLimit %v, want %d", w.name, s.BackoffLimit, RetriesPerPart)
			}
			continue
		}
		if s.CompletionMode != "Indexed" || s.Completions != n || s.Parallelism != n {
			t.Errorf("%s: %q completions %d parallelism %d, want Indexed, %d, %d", w.name, s.CompletionMode, s.Completions, s.Parallelism, n, n)
		}
		if s.BackoffLimitPerIndex == nil || *s.BackoffLimitPerIndex != RetriesPerPart || s.MaxFailedIndexes == nil || *s.MaxFailedIndexes != 0 || s.BackoffLimit != nil {
			t.Errorf("%s: backoffLimitPerIndex %v maxFailedIndexes %v backoffLimit %v", w.name, s.BackoffLimitPerIndex, s.MaxFailedIndexes, s.BackoffLimit)
		}
		if len(c.Env) != 1 || c.Env[0].Name != "JOB_COMPLETION_INDEX" || c.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
			t.Errorf("%s: env %+v", w.name, c.Env)
		}
	}
}

func TestSingle(t *testing.T) {
	o := base(3)
	o.Single, o.SweepArgs, o.Parallelism = true, []string{"--goal", "0.99"}, 2
	js := write(t, o)
	var names []string
	for _, j := range js {
		names = append(names, j.Metadata.Name)
	}
	if !slices.Equal(names, []string{"ratelab-tune-scan", "ratelab-tune-plan", "ratelab-tune-sweep", "ratelab-tune-merge"}) {
		t.Fatalf("the Jobs %q", names)
	}
	if got, want := js[1].Spec.Template.Spec.Containers[0].Args, append([]string{"tune", "plan", "--single", "--goal", "0.99", "--out", "/data/work/plan.json"}, files("scan", 3)...); !slices.Equal(got, want) {
		t.Errorf("plan %q, want %q", got, want)
	}
	if got, want := js[3].Spec.Template.Spec.Containers[0].Args, append([]string{"tune", "merge", "--csv", "/data/work/report.csv", "--json", "/data/work/report.json"}, files("partial", 3)...); !slices.Equal(got, want) {
		t.Errorf("merge %q, want %q", got, want)
	}
	if s := js[0].Spec; s.Completions != 3 || s.Parallelism != 2 {
		t.Errorf("scan: completions %d parallelism %d, want 3 and 2", s.Completions, s.Parallelism)
	}
}

func TestOneStage(t *testing.T) {
	all, err := K8sJob(base(2))
	check.Setup(t, err)
	docs := strings.Split(all, "---\n")[1:]
	for i, stage := range Stages(false) {
		o := base(2)
		o.Stage = stage
		out, err := K8sJob(o)
		if err != nil {
			t.Fatal(err)
		}
		head, doc, _ := strings.Cut(out, "---\n")
		if doc != docs[i] || !strings.Contains(head, "kubectl wait --for=condition=complete job/ratelab-tune-"+stage+" ") {
			t.Errorf("--stage %s:\n%s", stage, out)
		}
	}
}

func TestRefusals(t *testing.T) {
	for _, c := range []struct {
		change func(*K8sOptions)
		want   string
	}{
		{func(o *K8sOptions) { o.Image = "" }, "--image"},
		{func(o *K8sOptions) { o.Image = " \n" }, "--image"},
		{func(o *K8sOptions) { o.Image = "ratelab\x00" }, "NUL"},
		{func(o *K8sOptions) { o.Parts = 0 }, "--parts"},
		{func(o *K8sOptions) { o.Parts = MaxParts + 1 }, "--parts"},
		{func(o *K8sOptions) { o.Stage = "reduce" }, "scan, plan, sweep, pairs-plan, pairs, merge"},
		{func(o *K8sOptions) { o.Single, o.Stage = true, "pairs" }, "scan, plan, sweep, merge"},
		{func(o *K8sOptions) { o.Prefix = "Tune" }, "--prefix"},
		{func(o *K8sOptions) { o.Prefix = strings.Repeat("a", 53) }, "--prefix"},
		{func(o *K8sOptions) { o.Claim = "" }, "--claim"},
		{func(o *K8sOptions) { o.Claim = "logs\nx" }, "--claim"},
		{func(o *K8sOptions) { o.Trace = "" }, "--trace"},
		{func(o *K8sOptions) { o.Trace = "/logs" }, "--trace"},
		{func(o *K8sOptions) { o.Trace = "../logs" }, "--trace"},
		{func(o *K8sOptions) { o.Work = "logs/2026-08/work" }, "--work"},
		{func(o *K8sOptions) { o.Work = "\xff" }, "UTF-8"},
		{func(o *K8sOptions) { o.Mount = "data" }, "--mount"},
		{func(o *K8sOptions) { o.Mount = "/" }, "--mount"},
		{func(o *K8sOptions) { o.CPU = "two" }, "--pod-cpu"},
		{func(o *K8sOptions) { o.Memory = "4 GiB" }, "--pod-memory"},
		{func(o *K8sOptions) { o.Parallelism = -1 }, "--parallelism"},
		{func(o *K8sOptions) { o.SweepArgs = []string{"--"} }, "--"},
		{func(o *K8sOptions) { o.SweepArgs = []string{"--single=true"} }, "--single"},
	} {
		o := base(4)
		c.change(&o)
		out, err := K8sJob(o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %s", o, err, c.want)
		}
		if out != "" {
			t.Errorf("%+v: wrote %q with its error", o, out)
		}
	}
	if _, err := K8sJob(base(MaxParts)); err != nil {
		t.Errorf("%d parts: %v", MaxParts, err)
	}
}

// expand is Kubernetes' expansion of $(VAR) in a container's args: $$ is $,
// $(NAME) a variable's value (left as it is when the container has none).
func expand(s string, vars map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch end := strings.IndexByte(s[i+1:], ')'); {
		case s[i+1] == '$':
			b.WriteByte('$')
			i++
		case s[i+1] == '(' && end > 0:
			name := s[i+2 : i+1+end]
			if v, ok := vars[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString("$(" + name + ")")
			}
			i += 1 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}

// hostile are values YAML or Kubernetes would read as something else, were
// they written as they are.
var hostile = []string{
	`"quoted" and 'single'`, "two\nlines", "key: value", "# a comment", "a #b", "\n---\n- item", "- item",
	"$(JOB_COMPLETION_INDEX)", "$$", "cost $", "yes", "on", "0755", "1:20", "~", "null", "*alias", "&anchor",
	"!!binary", "{a: 1}", "[1]", " spaced ", "tab\there", "\r\n", "\x1b[2J", "\u2028", "ünïcode", "",
}

func TestHostileValues(t *testing.T) {
	for _, v := range hostile {
		o := base(2)
		o.Image = "registry.example/ratelab:" + v
		o.Trace = "logs/" + v
		if strings.TrimSpace(v) == "" || strings.Contains(v, "/") {
			o.Trace = "logs"
		}
		o.SweepArgs = []string{"--goal", v, "--name=" + v}
		out, err := K8sJob(o)
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "---") && l != "---" {
				t.Errorf("%q: a line %q would split the documents", v, l)
			}
		}
		js := jobs(t, out)
		if len(js) != 6 {
			t.Fatalf("%q: %d documents", v, len(js))
		}
		trace := "/data/" + strings.TrimPrefix(filepath.ToSlash(filepath.Clean(o.Trace)), "/")
		for _, j := range js {
			c := j.Spec.Template.Spec.Containers[0]
			if c.Image != o.Image {
				t.Errorf("%q: image %q, want %q", v, c.Image, o.Image)
			}
			var args []string
			for _, a := range c.Args {
				args = append(args, expand(a, map[string]string{"JOB_COMPLETION_INDEX": "1"}))
			}
			switch j.Metadata.Name {
			case "ratelab-tune-scan":
				if want := []string{"tune", "scan", "--trace", trace, "--parts", "2", "--out", "/data/work/scan-1.json"}; !slices.Equal(args, want) {
					t.Errorf("%q: scan runs %q, want %q", v, args, want)
				}
			case "ratelab-tune-plan":
				if want := append([]string{"tune", "plan", "--goal", v, "--name=" + v, "--out", "/data/work/plan.json"}, files("scan", 2)...); !slices.Equal(args, want) {
					t.Errorf("%q: plan runs %q, want %q", v, args, want)
				}
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	o := base(5)
	o.SweepArgs = []string{"--goal", "0.99"}
	a, err := K8sJob(o)
	check.Setup(t, err)
	for range 20 {
		if b, _ := K8sJob(o); b != a {
			t.Fatal("two calls wrote different YAML")
		}
	}
}

// The header's script, run with a kubectl that records what it is given,
// applies each Job alone, in order, and waits for it before the next.
func TestHeaderScript(t *testing.T) {
	for _, tool := range []string{"bash", "awk"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("RATELAB_CI") != "" {
				t.Fatalf("%s is not installed", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
	o := base(3)
	o.SweepArgs = []string{"--goal", "\n---\nkind: Secret"}
	out, err := K8sJob(o)
	check.Setup(t, err)
	head, _, _ := strings.Cut(out, "---\n")
	var script []string // from set -e to kubectl logs
	for l := range strings.Lines(head) {
		if s, ok := strings.CutPrefix(l, "#   "); ok && (len(script) > 0 || s == "set -e\n") {
			script = append(script, s)
			if strings.HasPrefix(s, "kubectl logs") {
				break
			}
		}
	}
	dir := t.TempDir()
	check.Setup(t, os.WriteFile(filepath.Join(dir, "pipeline.yaml"), []byte(out), 0o644))
	check.Setup(t, os.WriteFile(filepath.Join(dir, "kubectl"), []byte(`#!/bin/sh
case "$1" in
apply) { echo "== apply $*"; cat; } >> log ;;
*) echo "== $*" >> log ;;
esac
`), 0o755))
	cmd := exec.Command("bash", "-c", strings.Join(script, ""))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s\n%s", err, msg, strings.Join(script, ""))
	}
	log, err := os.ReadFile(filepath.Join(dir, "log"))
	check.Setup(t, err)
	var got []string
	var doc bytes.Buffer
	flush := func() {
		if doc.Len() > 0 {
			js := jobs(t, doc.String())
			if len(js) != 1 {
				t.Errorf("one apply was given %d Jobs", len(js))
			}
			for _, j := range js {
				got = append(got, "apply "+j.Metadata.Name)
			}
			doc.Reset()
		}
	}
	for l := range strings.Lines(string(log)) {
		if s, ok := strings.CutPrefix(l, "== "); ok {
			flush()
			if !strings.HasPrefix(s, "apply") {
				got = append(got, strings.TrimSpace(s))
			}
			continue
		}
		doc.WriteString(l)
	}
	flush()
	var want []string
	for _, s := range Stages(false) {
		want = append(want, "apply ratelab-tune-"+s, "wait --for=condition=complete job/ratelab-tune-"+s+" --timeout="+WaitTimeout)
	}
	want = append(want, "logs job/ratelab-tune-merge")
	if !slices.Equal(got, want) {
		t.Errorf("the script ran\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
