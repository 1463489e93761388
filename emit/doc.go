// Package emit writes what runs ratelab tune's pipeline on an engine (for now
// Kubernetes: K8sJob writes its Jobs): manifests and scripts, never the work.
//
// The model. The request log is a directory DIR of files partitioned by key
// (part-00000.gz, …, each holding whole keys), swept in N parts, on storage
// that every task of the engine sees, beside a directory WORK for the stages'
// files. The pipeline
// is six stages run one after the other, each started once the one before has
// completed:
//
//	scan        map     ratelab tune scan  --trace DIR --parts N --out WORK/scan-K.json
//	plan        reduce  ratelab tune plan  [--single] [sweep flags] --out WORK/plan.json WORK/scan-0.json …
//	sweep       map     ratelab tune sweep --plan WORK/plan.json --trace DIR --parts N --out WORK/partial-K.json
//	pairs-plan  reduce  ratelab tune merge --pairs WORK/pairs.json WORK/partial-0.json …
//	pairs       map     ratelab tune sweep --plan WORK/pairs.json --trace DIR --parts N --out WORK/pairs-K.json
//	merge       reduce  ratelab tune merge --csv WORK/report.csv --json WORK/report.json WORK/pairs-0.json …
//
// With Single (--single given to plan) the layered pairs' round, pairs-plan and
// pairs, is left out and merge reads WORK/partial-K.json.
//
// A map stage is N tasks; task K (0 ≤ K < N) learns K from its engine
// (JOB_COMPLETION_INDEX on Kubernetes, which ratelab reads itself) and N from
// --parts (not from the count of DIR's files, which may be more), works on the
// files of DIR whose index in name order is K modulo N, and writes its own
// file WORK/<name>-K.json. A reduce stage is one task, and it names every
// map task's file, 0 to N-1, rather than a glob: a part that is missing fails
// the stage instead of being left out of the report, and no shell is needed to
// expand a pattern. The engine retries a failed task with the same K a few
// times; a part that keeps failing fails its stage, and the pipeline stops
// there. The report's text is merge's standard output (on Kubernetes, its
// Job's log); its CSV and JSON are files in WORK.
//
// Every value that comes from the caller (the image, a path, a sweep flag) is
// written escaped for the file's language, so it reaches ratelab unchanged.
package emit
