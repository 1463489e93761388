package emit

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// The stages of the pipeline, in their order.
const (
	Scan      = "scan"
	Plan      = "plan"
	Sweep     = "sweep"
	PairsPlan = "pairs-plan"
	Pairs     = "pairs"
	Merge     = "merge"
)

// MaxParts is the most parts a pipeline is spread over.
const MaxParts = 1000

// Stages is the pipeline's stages in their order: six, or four with single
// (no layered pairs' round).
func Stages(single bool) []string {
	if single {
		return []string{Scan, Plan, Sweep, Merge}
	}
	return []string{Scan, Plan, Sweep, PairsPlan, Pairs, Merge}
}

// pipeline is what every engine's pipeline is made of: where the log and the
// stages' files are, as the tasks see them, and how the sweep is planned.
type pipeline struct {
	trace, work string // DIR and WORK
	parts       int
	single      bool
	sweepArgs   []string
	// readArgs are the flags every stage that reads the log reads it with
	// (--key, --format…: scan and the sweeps alike); scanArgs go to scan
	// alone (--periods, the periods peaks are measured over); workerArgs to
	// the sweeps (--workers, --memory)
	readArgs, scanArgs, workerArgs []string
}

// step is one stage as ratelab's arguments.
type step struct {
	name   string
	mapped bool     // N tasks, one a part K; else one task
	args   []string // after the command ratelab
}

// steps is the pipeline's stages, their arguments written with lit around
// every literal value (the engine's escaping) and index where a map task's
// part K goes (the engine's reference to it).
func (p pipeline) steps(lit func(string) string, index string) []step {
	file := func(name string) string { return lit(path.Join(p.work, name)) }
	perPart := func(name string) string { return file(name+"-") + index + lit(".json") }
	every := func(name string) []string {
		files := make([]string, p.parts)
		for k := range files {
			files[k] = file(fmt.Sprintf("%s-%d.json", name, k))
		}
		return files
	}
	words := func(ws ...string) []string {
		out := make([]string, len(ws))
		for i, w := range ws {
			out[i] = lit(w)
		}
		return out
	}
	trace := lit(p.trace)
	// N given, not left to the count of DIR's files: a DIR of more files than
	// parts is still read whole, each file by the part K modulo N
	parts := []string{lit("--parts"), lit(fmt.Sprint(p.parts))}

	plan := words("tune", "plan")
	if p.single {
		plan = append(plan, lit("--single"))
	}
	plan = append(plan, words(p.sweepArgs...)...)
	plan = append(append(plan, lit("--out"), file("plan.json")), every("scan")...)

	read := words(p.readArgs...)
	sweep := slices.Concat(read, words(p.workerArgs...))
	steps := []step{
		{Scan, true, slices.Concat(words("tune", "scan", "--trace"), []string{trace}, parts, read, words(p.scanArgs...), []string{lit("--out"), perPart("scan")})},
		{Plan, false, plan},
		{Sweep, true, slices.Concat(words("tune", "sweep", "--plan"), []string{file("plan.json"), lit("--trace"), trace}, parts, sweep, []string{lit("--out"), perPart("partial")})},
	}
	last := "partial"
	if !p.single {
		steps = append(steps,
			step{PairsPlan, false, append(append(words("tune", "merge", "--pairs"), file("pairs.json")), every("partial")...)},
			step{Pairs, true, slices.Concat(words("tune", "sweep", "--plan"), []string{file("pairs.json"), lit("--trace"), trace}, parts, sweep, []string{lit("--out"), perPart("pairs")})})
		last = "pairs"
	}
	merge := append(words("tune", "merge", "--csv"), file("report.csv"), lit("--json"), file("report.json"))
	return append(steps, step{Merge, false, append(merge, every(last)...)})
}

// check refuses a pipeline its stages could not run.
func (p pipeline) check() error {
	switch {
	case p.parts < 1 || p.parts > MaxParts:
		return fmt.Errorf("--parts: %d parts; the log is split into 1 to %d", p.parts, MaxParts)
	case p.trace == "":
		return fmt.Errorf("--trace: name the directory of the partitioned log (part-00000.gz, …)")
	}
	dir := p.trace // a pattern's folder: the part before its first wildcard
	for strings.ContainsAny(dir, "*?[") {
		dir = path.Dir(dir)
	}
	if p.work == dir || strings.HasPrefix(p.work, dir+"/") || dir == "." {
		return fmt.Errorf("--work %q is inside --trace %q: the stages' files would be read as parts of the log", p.work, p.trace)
	}
	for i, a := range slices.Concat(p.sweepArgs, p.readArgs, p.scanArgs, p.workerArgs) {
		if err := text("a sweep flag", a); err != nil {
			return err
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case a == "--":
			return fmt.Errorf("sweep flag %d is --: the files after it would be read as flags' values, and --out as a file", i+1)
		case strings.HasPrefix(a, "-") && name == "single":
			return fmt.Errorf("sweep flag %q: --single is the option of its own (the pipeline leaves out the pairs' round with it)", a)
		}
	}
	return nil
}

// text refuses a value no file can carry to ratelab: bytes that are not
// UTF-8 (YAML would write them as binary) or a NUL (no argument holds one).
func text(what, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s %q is not UTF-8 text", what, s)
	}
	if strings.ContainsRune(s, 0) {
		return fmt.Errorf("%s %q holds a NUL byte", what, s)
	}
	return nil
}

// under is rel (a relative path) below the absolute dir, for --flag.
func under(flag, dir, rel string) (string, error) {
	if err := text(flag, rel); err != nil {
		return "", err
	}
	clean := path.Clean(rel)
	switch {
	case rel == "":
		return "", nil
	case path.IsAbs(rel):
		return "", fmt.Errorf("%s %q: a path relative to --mount %q, not an absolute one", flag, rel, dir)
	case clean == "." || clean == ".." || strings.HasPrefix(clean, "../"):
		return "", fmt.Errorf("%s %q: a directory below --mount %q", flag, rel, dir)
	}
	return path.Join(dir, clean), nil
}
