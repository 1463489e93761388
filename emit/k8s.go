package emit

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// K8sOptions is the pipeline as Kubernetes Jobs: one Job a stage, every pod
// mounting one PersistentVolumeClaim that holds the log and the stages' files.
type K8sOptions struct {
	Prefix      string   // the Jobs are named Prefix-scan, Prefix-plan, …; default ratelab-tune
	Parts       int      // N, the parts the log is swept in (a map stage's pods): 1 to MaxParts
	Parallelism int      // the most pods of a map stage at once; 0 (or more than Parts): Parts
	Image       string   // the container image holding ratelab (its command ratelab on the PATH); required
	Claim       string   // the PersistentVolumeClaim every pod mounts; required
	Mount       string   // where it is mounted in the pod; default /data
	Trace       string   // the partitioned log's directory DIR, relative to Mount; required
	Work        string   // the stages' directory WORK, relative to Mount; default work
	Single      bool     // --single to tune plan: no layered pairs' round (four stages, not six)
	SweepArgs   []string // more flags to tune plan (--goal 0.99, …), each one argument
	ReadArgs    []string // the flags the log is read with (--key, --format…), to scan and the sweeps
	ScanArgs    []string // more flags to tune scan (--periods), each one argument
	WorkerArgs  []string // more flags to tune sweep (--workers, --memory), each one argument
	CPU         string   // each pod's CPU request; default 2
	Memory      string   // each pod's memory request; default 4Gi
	// TTL is the seconds a finished Job is kept before Kubernetes deletes it
	// (ttlSecondsAfterFinished): 0 is a day; negative keeps it until deleted by
	// hand. (Deleting at once is not offered: kubectl wait would miss the Job.)
	TTL int
	// Stage is the one stage to write (scan, plan, sweep, pairs-plan, pairs or
	// merge), or "" for every stage.
	Stage string
}

const (
	// RetriesPerPart is how often a failed pod is retried: with its index in a
	// map stage (backoffLimitPerIndex), the one task's in a reduce stage
	// (backoffLimit).
	RetriesPerPart = 2
	// WaitTimeout is the timeout the header's kubectl wait is given.
	WaitTimeout = "24h"
	// indexVar is the part K in a map stage's pod, set by the Job controller.
	indexVar = "JOB_COMPLETION_INDEX"
	// IndexField is the downward API's path to the pod's completion index, the
	// one Kubernetes' docs give for an Indexed Job.
	IndexField = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
	day        = 24 * 60 * 60
)

var (
	dnsLabel     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	// quantity is Kubernetes' resource quantity, without a sign: 2, 500m, 4Gi, 1.5, 1e9.
	quantity = regexp.MustCompile(`^([0-9]+(\.[0-9]*)?|\.[0-9]+)([KMGTPE]i|[mkMGTPE]|[eE][-+]?[0-9]+)?$`)
)

// K8sJob writes the pipeline as a multi-document YAML of batch/v1 Jobs, one a
// stage, in the stages' order (or the one stage o.Stage names), behind a
// comment saying how to run them one after the other: Kubernetes starts a Job
// as soon as it is applied and orders none after another.
//
// A map stage is an Indexed Job of N completions whose pods take their part
// from JOB_COMPLETION_INDEX, declared in the container's env from the
// completion index annotation so that the args' $(JOB_COMPLETION_INDEX) is
// expanded by Kubernetes, with no shell in the image. A failed pod is retried
// with its index RetriesPerPart times and a part that keeps failing fails the
// Job (maxFailedIndexes 0); a pod is replaced only once it has failed, so two
// pods never write one part's file at once. A reduce stage is a Job of one
// completion. The merge stage's report text is the pod's standard output: its
// log, which kubectl logs prints.
//
// Every value is written by a YAML encoder, and every $ in the command's
// arguments doubled, so Kubernetes expands nothing of the caller's.
func K8sJob(o K8sOptions) (string, error) {
	o, p, err := o.checked()
	if err != nil {
		return "", err
	}
	steps := p.steps(func(s string) string { return strings.ReplaceAll(s, "$", "$$") }, "$("+indexVar+")")
	names := make([]string, len(steps))
	for i, s := range steps {
		names[i] = o.Prefix + "-" + s.name
	}
	var out bytes.Buffer
	out.WriteString(header(o, p, names))
	for i, s := range steps {
		if o.Stage != "" && s.name != o.Stage {
			continue
		}
		doc, err := marshal(o.job(names[i], s))
		if err != nil {
			return "", fmt.Errorf("the %s Job: %v", s.name, err)
		}
		out.WriteString("---\n")
		out.Write(doc)
	}
	return out.String(), nil
}

// checked is o with its defaults, and its pipeline, or why they cannot run.
func (o K8sOptions) checked() (K8sOptions, pipeline, error) {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&o.Prefix, "ratelab-tune")
	def(&o.Mount, "/data")
	def(&o.Work, "work")
	def(&o.CPU, "2")
	def(&o.Memory, "4Gi")
	var p pipeline
	if strings.TrimSpace(o.Image) == "" {
		return o, p, fmt.Errorf("--image: name the container image that holds ratelab (its command ratelab on the PATH)")
	}
	if err := text("--image", o.Image); err != nil {
		return o, p, err
	}
	longest := len("-" + PairsPlan)
	switch {
	case !dnsLabel.MatchString(o.Prefix) || len(o.Prefix)+longest > 63:
		return o, p, fmt.Errorf("--prefix %q: the Jobs' names begin with it, so lower-case letters, digits and '-', at most %d characters, starting and ending with a letter or digit", o.Prefix, 63-longest)
	case o.Claim == "":
		return o, p, fmt.Errorf("--claim: name the PersistentVolumeClaim that holds the log and the stages' files, mounted in every pod")
	case !dnsSubdomain.MatchString(o.Claim) || len(o.Claim) > 253:
		return o, p, fmt.Errorf("--claim %q is no PersistentVolumeClaim's name (lower-case letters, digits, '-' and '.')", o.Claim)
	case !quantity.MatchString(o.CPU):
		return o, p, fmt.Errorf("--pod-cpu %q is no Kubernetes quantity of CPU, like 2 or 500m", o.CPU)
	case !quantity.MatchString(o.Memory):
		return o, p, fmt.Errorf("--pod-memory %q is no Kubernetes quantity of memory, like 4Gi or 512Mi", o.Memory)
	case o.Parallelism < 0:
		return o, p, fmt.Errorf("--parallelism %d: the most pods of a stage at once is at least 1 (0 for every part at once)", o.Parallelism)
	}
	if err := text("--mount", o.Mount); err != nil {
		return o, p, err
	}
	if !path.IsAbs(o.Mount) || path.Clean(o.Mount) != o.Mount || o.Mount == "/" {
		return o, p, fmt.Errorf("--mount %q: an absolute directory in the pod, like /data, written plainly (no ., .. or //)", o.Mount)
	}
	trace, err := under("--trace", o.Mount, o.Trace)
	if err != nil {
		return o, p, err
	}
	work, err := under("--work", o.Mount, o.Work)
	if err != nil {
		return o, p, err
	}
	p = pipeline{trace: trace, work: work, parts: o.Parts, single: o.Single, sweepArgs: o.SweepArgs, readArgs: o.ReadArgs, scanArgs: o.ScanArgs, workerArgs: o.WorkerArgs}
	if err := p.check(); err != nil {
		return o, p, err
	}
	if o.Parallelism == 0 || o.Parallelism > o.Parts {
		o.Parallelism = o.Parts
	}
	if o.Stage != "" && !slices.Contains(Stages(o.Single), o.Stage) {
		if o.Single && slices.Contains(Stages(false), o.Stage) {
			return o, p, fmt.Errorf("--stage %q: with --single there is no layered pairs' round; the stages are %s", o.Stage, strings.Join(Stages(true), ", "))
		}
		return o, p, fmt.Errorf("--stage %q is no stage; the stages are %s", o.Stage, strings.Join(Stages(o.Single), ", "))
	}
	return o, p, nil
}

// header is the comment the YAML starts with: how to run the Jobs in order.
// It holds no value of the caller's but names, checked to be DNS labels, and
// numbers.
func header(o K8sOptions, p pipeline, names []string) string {
	var b strings.Builder
	line := func(format string, args ...any) {
		b.WriteString(strings.TrimRight("# "+fmt.Sprintf(format, args...), " ") + "\n")
	}
	last := names[len(names)-1]
	stages := Stages(o.Single)
	if o.Stage != "" {
		i := slices.Index(stages, o.Stage)
		line("ratelab tune over %d parts: stage %d of %d (%s) as a Kubernetes Job.", p.parts, i+1, len(stages), o.Stage)
		if i > 0 {
			line("Apply it once job/%s is complete, then wait for it:", names[i-1])
		} else {
			line("Apply it, then wait for it:")
		}
		line("  kubectl wait --for=condition=complete job/%s --timeout=%s", names[i], WaitTimeout)
		if o.Stage == Merge {
			line("The report's text is the Job's log: kubectl logs job/%s > report.txt", last)
		}
		return b.String()
	}
	line("ratelab tune over %d parts as Kubernetes Jobs, one a stage:", p.parts)
	line("%s.", strings.Join(stages, ", "))
	line("Kubernetes starts a Job as soon as it is applied and orders none after")
	line("another, so apply the documents below one at a time, each once the Job")
	line("before it is complete. The work folder must be on the claim first (ratelab")
	line("makes no folder): %s. With this file saved as pipeline.yaml:", path.Join(p.work))
	line("")
	line("  set -e")
	line("  n=0")
	for i := 0; i < len(names); i += 3 {
		lead, end := "      ", " \\"
		if i == 0 {
			lead = "  for job in "
		}
		if i+3 >= len(names) {
			end = "; do"
		}
		line("%s%s%s", lead, strings.Join(names[i:min(i+3, len(names))], " "), end)
	}
	line("    n=$((n + 1))")
	line("    awk -v n=\"$n\" '/^---$/ { d++; next } d == n' pipeline.yaml | kubectl apply -f -")
	line("    kubectl wait --for=condition=complete \"job/$job\" --timeout=%s", WaitTimeout)
	line("  done")
	line("  kubectl logs job/%s > report.txt", last)
	line("")
	line("The report's CSV and JSON are on the claim, in the work directory. A Job")
	line("that fails (a part, or a reduce stage's one task, failed %d times) is never", RetriesPerPart+1)
	line("complete: its wait runs to the timeout, and kubectl describe job/NAME says")
	line("why. kubectl apply leaves a finished Job as it is, so delete the Jobs")
	line("before running the pipeline again:")
	line("  kubectl delete jobs -l app.kubernetes.io/instance=%s", o.Prefix)
	return b.String()
}

// job is step s as the Job name.
func (o K8sOptions) job(name string, s step) job {
	labels := map[string]string{
		"app.kubernetes.io/name":      "ratelab",
		"app.kubernetes.io/instance":  o.Prefix,
		"app.kubernetes.io/component": s.name,
	}
	c := container{
		Name:         "ratelab",
		Image:        o.Image,
		Command:      []string{"ratelab"},
		Args:         s.args,
		Resources:    resources{Requests: map[string]string{"cpu": o.CPU, "memory": o.Memory}},
		VolumeMounts: []volumeMount{{Name: "data", MountPath: o.Mount}},
	}
	j := job{
		APIVersion: "batch/v1",
		Kind:       "Job",
		Metadata:   meta{Name: name, Labels: labels},
		Spec: jobSpec{
			Completions:          1,
			Parallelism:          1,
			PodReplacementPolicy: "Failed",
			Template: podTemplate{
				Metadata: meta{Labels: labels},
				Spec: podSpec{
					RestartPolicy: "Never",
					Volumes:       []volume{{Name: "data", PersistentVolumeClaim: claimSource{ClaimName: o.Claim}}},
				},
			},
		},
	}
	retries, none := RetriesPerPart, 0
	if s.mapped {
		j.Spec.CompletionMode = "Indexed"
		j.Spec.Completions, j.Spec.Parallelism = o.Parts, o.Parallelism
		j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = &retries, &none
		c.Env = []envVar{{Name: indexVar, ValueFrom: envSource{FieldRef: fieldRef{FieldPath: IndexField}}}}
	} else {
		j.Spec.BackoffLimit = &retries
	}
	switch ttl := o.TTL; {
	case ttl == 0:
		ttl = day
		j.Spec.TTLSecondsAfterFinished = &ttl
	case ttl > 0:
		j.Spec.TTLSecondsAfterFinished = &ttl
	}
	j.Spec.Template.Spec.Containers = []container{c}
	return j
}

// marshal is v as one YAML document, indented by two.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// The part of batch/v1 Job that K8sJob writes, field for field as the API
// names them (internal/k8scheck decodes it strictly into k8s.io/api's Job).
type (
	job struct {
		APIVersion string  `yaml:"apiVersion"`
		Kind       string  `yaml:"kind"`
		Metadata   meta    `yaml:"metadata"`
		Spec       jobSpec `yaml:"spec"`
	}
	meta struct {
		Name   string            `yaml:"name,omitempty"`
		Labels map[string]string `yaml:"labels,omitempty"`
	}
	jobSpec struct {
		CompletionMode          string      `yaml:"completionMode,omitempty"`
		Completions             int         `yaml:"completions"`
		Parallelism             int         `yaml:"parallelism"`
		BackoffLimit            *int        `yaml:"backoffLimit,omitempty"`
		BackoffLimitPerIndex    *int        `yaml:"backoffLimitPerIndex,omitempty"`
		MaxFailedIndexes        *int        `yaml:"maxFailedIndexes,omitempty"`
		PodReplacementPolicy    string      `yaml:"podReplacementPolicy,omitempty"`
		TTLSecondsAfterFinished *int        `yaml:"ttlSecondsAfterFinished,omitempty"`
		Template                podTemplate `yaml:"template"`
	}
	podTemplate struct {
		Metadata meta    `yaml:"metadata"`
		Spec     podSpec `yaml:"spec"`
	}
	podSpec struct {
		RestartPolicy string      `yaml:"restartPolicy"`
		Containers    []container `yaml:"containers"`
		Volumes       []volume    `yaml:"volumes"`
	}
	container struct {
		Name         string        `yaml:"name"`
		Image        string        `yaml:"image"`
		Command      []string      `yaml:"command"`
		Args         []string      `yaml:"args"`
		Env          []envVar      `yaml:"env,omitempty"`
		Resources    resources     `yaml:"resources"`
		VolumeMounts []volumeMount `yaml:"volumeMounts"`
	}
	envVar struct {
		Name      string    `yaml:"name"`
		ValueFrom envSource `yaml:"valueFrom"`
	}
	envSource struct {
		FieldRef fieldRef `yaml:"fieldRef"`
	}
	fieldRef struct {
		FieldPath string `yaml:"fieldPath"`
	}
	resources struct {
		Requests map[string]string `yaml:"requests"`
	}
	volumeMount struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	}
	volume struct {
		Name                  string      `yaml:"name"`
		PersistentVolumeClaim claimSource `yaml:"persistentVolumeClaim"`
	}
	claimSource struct {
		ClaimName string `yaml:"claimName"`
	}
)
