package k8scheck

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"ratelab/emit"
)

// decode splits out as kubectl splits a file of many documents and decodes
// each strictly into a Job: a field batch/v1 has not, or one given twice,
// fails. The first chunk is the header, comments only.
func decode(t *testing.T, out string) []batchv1.Job {
	t.Helper()
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(out)))
	var jobs []batchv1.Job
	for i := 0; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return jobs
		}
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			for l := range strings.Lines(string(doc)) {
				if l = strings.TrimSpace(l); l != "" && l != "---" && !strings.HasPrefix(l, "#") {
					t.Fatalf("the header holds %q, not a comment", l)
				}
			}
			continue
		}
		var j batchv1.Job
		if err := yaml.UnmarshalStrict(doc, &j); err != nil {
			t.Fatalf("document %d is no batch/v1 Job: %v\n%s", i, err, doc)
		}
		jobs = append(jobs, j)
	}
}

// args are the container's arguments as the kubelet passes them to part K,
// expanded as Kubernetes expands them, left to right: $$ is $,
// $(JOB_COMPLETION_INDEX) is K, and $(OTHER) stays as it is (the container
// has no other variable).
func args(c corev1.Container, k int) []string {
	var out []string
	for _, a := range c.Args {
		var b strings.Builder
		for i := 0; i < len(a); i++ {
			rest := a[i:]
			switch {
			case strings.HasPrefix(rest, "$$"):
				b.WriteByte('$')
				i++
			case strings.HasPrefix(rest, "$(JOB_COMPLETION_INDEX)"):
				fmt.Fprint(&b, k)
				i += len("$(JOB_COMPLETION_INDEX)") - 1
			default:
				b.WriteByte(a[i])
			}
		}
		out = append(out, b.String())
	}
	return out
}

func files(name string, n int) []string {
	var fs []string
	for k := range n {
		fs = append(fs, fmt.Sprintf("/mnt/logs/work/%s-%d.json", name, k))
	}
	return fs
}

func TestJobsAreBatchV1(t *testing.T) {
	for _, c := range []struct {
		parts, parallelism, want int
		single                   bool
	}{{4, 0, 4, false}, {3, 2, 2, true}, {1, 8, 1, false}, {emit.MaxParts, 50, 50, false}} {
		o := emit.K8sOptions{Prefix: "tune-aug", Parts: c.parts, Parallelism: c.parallelism, Image: "registry.example/ratelab:1.2", Claim: "request-logs",
			Mount: "/mnt/logs", Trace: "parts", Single: c.single, SweepArgs: []string{"--goal", "0.99"}, CPU: "1500m", Memory: "6Gi", TTL: 3600}
		out, err := emit.K8sJob(o)
		if err != nil {
			t.Fatal(err)
		}
		jobs := decode(t, out)
		stages := emit.Stages(c.single)
		if len(jobs) != len(stages) {
			t.Fatalf("%d parts: %d Jobs, want %d", c.parts, len(jobs), len(stages))
		}
		last := "pairs"
		if c.single {
			last = "partial"
		}
		for i, j := range jobs {
			stage, s := stages[i], jobs[i].Spec
			pod := s.Template.Spec
			if j.APIVersion != "batch/v1" || j.Kind != "Job" || j.Name != "tune-aug-"+stage {
				t.Errorf("%s %s %q, want batch/v1 Job tune-aug-%s", j.APIVersion, j.Kind, j.Name, stage)
			}
			for _, e := range validation.IsDNS1123Label(j.Name) {
				t.Errorf("%s: %s", j.Name, e)
			}
			for k, v := range j.Labels {
				for _, e := range append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...) {
					t.Errorf("%s: label %s=%s: %s", j.Name, k, v, e)
				}
			}
			if pod.RestartPolicy != corev1.RestartPolicyNever || len(pod.Containers) != 1 || len(pod.Volumes) != 1 {
				t.Fatalf("%s: restartPolicy %q, %d containers, %d volumes", j.Name, pod.RestartPolicy, len(pod.Containers), len(pod.Volumes))
			}
			ctr, vol := pod.Containers[0], pod.Volumes[0]
			if vol.PersistentVolumeClaim == nil || vol.PersistentVolumeClaim.ClaimName != "request-logs" || len(validation.IsDNS1123Subdomain(vol.PersistentVolumeClaim.ClaimName)) > 0 {
				t.Errorf("%s: volume %+v, want the claim request-logs", j.Name, vol)
			}
			if len(ctr.VolumeMounts) != 1 || ctr.VolumeMounts[0].Name != vol.Name || ctr.VolumeMounts[0].MountPath != "/mnt/logs" {
				t.Errorf("%s: mounts %+v, want %s at /mnt/logs", j.Name, ctr.VolumeMounts, vol.Name)
			}
			if ctr.Image != o.Image || !slices.Equal(ctr.Command, []string{"ratelab"}) {
				t.Errorf("%s: image %q command %q", j.Name, ctr.Image, ctr.Command)
			}
			if cpu, mem := ctr.Resources.Requests[corev1.ResourceCPU], ctr.Resources.Requests[corev1.ResourceMemory]; cpu.Cmp(resource.MustParse("1.5")) != 0 || mem.Cmp(resource.MustParse("6Gi")) != 0 {
				t.Errorf("%s: requests cpu %s memory %s, want 1500m and 6Gi", j.Name, cpu.String(), mem.String())
			}
			if s.TTLSecondsAfterFinished == nil || *s.TTLSecondsAfterFinished != 3600 || s.PodReplacementPolicy == nil || *s.PodReplacementPolicy != batchv1.Failed {
				t.Errorf("%s: ttlSecondsAfterFinished %v podReplacementPolicy %v", j.Name, s.TTLSecondsAfterFinished, s.PodReplacementPolicy)
			}
			mapped := stage == emit.Scan || stage == emit.Sweep || stage == emit.Pairs
			var want []string
			switch stage {
			case emit.Scan:
				want = []string{"tune", "scan", "--trace", "/mnt/logs/parts", "--parts", fmt.Sprint(c.parts), "--out", "/mnt/logs/work/scan-1.json"}
			case emit.Plan:
				want = []string{"tune", "plan"}
				if c.single {
					want = append(want, "--single")
				}
				want = append(append(want, "--goal", "0.99", "--out", "/mnt/logs/work/plan.json"), files("scan", c.parts)...)
			case emit.Sweep:
				want = []string{"tune", "sweep", "--plan", "/mnt/logs/work/plan.json", "--trace", "/mnt/logs/parts", "--parts", fmt.Sprint(c.parts), "--out", "/mnt/logs/work/partial-1.json"}
			case emit.PairsPlan:
				want = append([]string{"tune", "merge", "--pairs", "/mnt/logs/work/pairs.json"}, files("partial", c.parts)...)
			case emit.Pairs:
				want = []string{"tune", "sweep", "--plan", "/mnt/logs/work/pairs.json", "--trace", "/mnt/logs/parts", "--parts", fmt.Sprint(c.parts), "--out", "/mnt/logs/work/pairs-1.json"}
			case emit.Merge:
				want = append([]string{"tune", "merge", "--csv", "/mnt/logs/work/report.csv", "--json", "/mnt/logs/work/report.json"}, files(last, c.parts)...)
			}
			if got := args(ctr, 1); !slices.Equal(got, want) {
				t.Errorf("%s: runs %q, want %q", j.Name, got, want)
			}
			if !mapped {
				if s.CompletionMode != nil && *s.CompletionMode != batchv1.NonIndexedCompletion || s.Completions == nil || *s.Completions != 1 ||
					s.Parallelism == nil || *s.Parallelism != 1 || s.BackoffLimit == nil || *s.BackoffLimit != emit.RetriesPerPart ||
					s.BackoffLimitPerIndex != nil || s.MaxFailedIndexes != nil || len(ctr.Env) != 0 {
					t.Errorf("%s: a reduce stage is one completion retried %d times: %+v, env %+v", j.Name, emit.RetriesPerPart, s, ctr.Env)
				}
				continue
			}
			if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || s.Completions == nil || *s.Completions != int32(c.parts) || s.Parallelism == nil || *s.Parallelism != int32(c.want) {
				t.Errorf("%s: completionMode %v completions %v parallelism %v, want Indexed, %d, %d", j.Name, s.CompletionMode, s.Completions, s.Parallelism, c.parts, c.want)
			}
			if s.BackoffLimitPerIndex == nil || *s.BackoffLimitPerIndex != emit.RetriesPerPart || s.MaxFailedIndexes == nil || *s.MaxFailedIndexes != 0 || s.BackoffLimit != nil {
				t.Errorf("%s: backoffLimitPerIndex %v maxFailedIndexes %v backoffLimit %v", j.Name, s.BackoffLimitPerIndex, s.MaxFailedIndexes, s.BackoffLimit)
			}
			if len(ctr.Env) != 1 || ctr.Env[0].Name != "JOB_COMPLETION_INDEX" || ctr.Env[0].ValueFrom == nil || ctr.Env[0].ValueFrom.FieldRef == nil ||
				ctr.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['"+batchv1.JobCompletionIndexAnnotation+"']" {
				t.Errorf("%s: env %+v", j.Name, ctr.Env)
			}
		}
	}
}

// Values that YAML 1.1 (which sigs.k8s.io/yaml, and so kubectl, reads) or
// Kubernetes' $(VAR) expansion would take for something else reach the Job
// unchanged.
func TestHostileValuesReachTheJob(t *testing.T) {
	for _, v := range []string{
		`"quoted" and 'single'`, "two\nlines", "key: value", "# a comment", "a #b", "\n---\nkind: Secret", "- item",
		"$(JOB_COMPLETION_INDEX)", "$$", "cost $", "yes", "on", "y", "off", "0755", "0x1F", "1:20", "1e3", "~", "null",
		"*alias", "&anchor", "!!binary", "{a: 1}", "[1]", "<<", "=", " spaced ", "tab\there", "\r\n", "\x1b[2J", "\u2028", "\ufeffbom", "ünïcode", "",
	} {
		o := emit.K8sOptions{Parts: 2, Image: "registry.example/ratelab:" + v, Claim: "logs", Trace: "parts", Stage: emit.Plan, SweepArgs: []string{"--goal", v, "--name=" + v}}
		out, err := emit.K8sJob(o)
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		jobs := decode(t, out)
		if len(jobs) != 1 {
			t.Fatalf("%q: %d Jobs", v, len(jobs))
		}
		ctr := jobs[0].Spec.Template.Spec.Containers[0]
		want := []string{"tune", "plan", "--goal", v, "--name=" + v, "--out", "/data/work/plan.json", "/data/work/scan-0.json", "/data/work/scan-1.json"}
		if ctr.Image != o.Image || !slices.Equal(args(ctr, 0), want) {
			t.Errorf("%q: image %q args %q, want %q and %q", v, ctr.Image, args(ctr, 0), o.Image, want)
		}
	}
}

// No document has a field twice or one of another kind's: a strict decode of
// a Job with a made-up field fails, so the check above can fail.
func TestStrictDecodeRefusesUnknownFields(t *testing.T) {
	out, err := emit.K8sJob(emit.K8sOptions{Parts: 2, Image: "ratelab", Claim: "logs", Trace: "parts", Stage: emit.Scan})
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace([]byte(out), []byte("  completionMode: Indexed\n"), []byte("  completionMode: Indexed\n  completionsPerIndex: 1\n"), 1)
	if bytes.Equal(bad, []byte(out)) {
		t.Fatal("no completionMode: Indexed line to add a field after")
	}
	_, doc, _ := bytes.Cut(bad, []byte("---\n"))
	var j batchv1.Job
	if err := yaml.UnmarshalStrict(doc, &j); err == nil {
		t.Error("a Job with a field batch/v1 has not was decoded")
	}
}
