package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratelab/tune"
)

// A worker's part is read from --part, else from the first of the variables
// an engine sets, with N from K/N, --parts, Slurm's task count or the folder's
// files; a part it cannot tell is an error that says what to give.
func TestPartOfReadsWhatEnginesSet(t *testing.T) {
	env := func(vars ...string) func(string) string {
		return func(name string) string {
			for i := 0; i+1 < len(vars); i += 2 {
				if vars[i] == name {
					return vars[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		given        string
		parts, files int
		env          func(string) string
		want         tune.Partition
		err          string
	}{
		{given: "2/5", env: env(), want: tune.Partition{K: 2, N: 5}},
		{given: "2", parts: 5, env: env(), want: tune.Partition{K: 2, N: 5}},
		{given: "2", files: 8, env: env(), want: tune.Partition{K: 2, N: 8}},
		{given: "1/4", env: env("JOB_COMPLETION_INDEX", "3"), want: tune.Partition{K: 1, N: 4}},
		{env: env("JOB_COMPLETION_INDEX", "3"), parts: 4, want: tune.Partition{K: 3, N: 4}},
		{env: env("JOB_COMPLETION_INDEX", "3"), files: 6, want: tune.Partition{K: 3, N: 6}},
		{env: env("SLURM_ARRAY_TASK_ID", "7", "SLURM_ARRAY_TASK_MIN", "5", "SLURM_ARRAY_TASK_COUNT", "3"), want: tune.Partition{K: 2, N: 3}},
		{env: env("RATELAB_PART", "0/2", "JOB_COMPLETION_INDEX", "1"), want: tune.Partition{K: 0, N: 2}},
		{env: env(), err: "give --part K/N"},
		{env: env("JOB_COMPLETION_INDEX", "3"), err: "give --parts N"},
		{env: env("RATELAB_PART", "x"), err: `RATELAB_PART="x" is not a part number`},
		{given: "5/4", env: env(), err: "K must be from 0 to N-1"},
		{given: "1/4", parts: 3, env: env(), err: "--parts 3"},
		{env: env("SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_COUNT", "3"), err: "K must be from 0 to N-1"},
	} {
		got, err := partOf(c.given, c.parts, c.files, c.env)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("partOf(%q, %d, %d): %v, %v; want an error saying %q", c.given, c.parts, c.files, got, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("partOf(%q, %d, %d) = %v, %v; want %v", c.given, c.parts, c.files, got, err, c.want)
		}
	}
}

// TestOutputsStayApartFromTheParts: an output matched by the pattern of a
// log's parts (through a symlink to their folder too), or named as the pattern
// itself, is refused with the reason, and an input among the parts is told
// to move; nothing is written.
func TestOutputsStayApartFromTheParts(t *testing.T) {
	dir := t.TempDir()
	log, err := os.ReadFile("traces/shop.log")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sub/a1.log", "sub/a2.log"} {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, log, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	pattern := filepath.Join(dir, "link", "a*.log")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tune", "--trace", pattern, "--csv", filepath.Join(dir, "sub", "a3.log")}, "would be among the parts of the log --trace"},
		{[]string{"tune", "--trace", filepath.Join(dir, "sub", "a[12].log"), "--json", filepath.Join(dir, "sub", "a[12].log")}, "would be a file named as the pattern"},
		{[]string{"tune", "sweep", "--trace", pattern, "--part", "0/1", "--plan", filepath.Join(dir, "sub", "a2.log")}, "is among the parts of the log --trace"},
	} {
		code, out, errOut := ratelab(tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 saying %q", strings.Join(tc.args, " "), code, out, errOut, tc.want)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "sub"))
	if len(entries) != 2 {
		t.Errorf("the parts' folder holds %d files, want the 2 parts", len(entries))
	}

	// standard input read from a file inside the folder split writes whole:
	// refused, the file kept (writing the folder would have deleted it)
	ours := filepath.Join(dir, "ours")
	if err := os.MkdirAll(ours, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string][]byte{".ratelab": nil, "s.log": log} {
		if err := os.WriteFile(filepath.Join(ours, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in, err := os.Open(filepath.Join(ours, "s.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	stdin := os.Stdin
	os.Stdin = in
	code, out, errOut := ratelab("tune", "split", "--parts", "2", "--out", ours, "--trace", "-")
	os.Stdin = stdin
	if code != 2 || !strings.Contains(errOut, "holds standard input (--trace -)") || out != "" {
		t.Errorf("tune split --trace - < FILE inside --out: exit %d, stdout %q, stderr %q; want exit 2 naming standard input", code, out, errOut)
	}
	if kept, err := os.ReadFile(filepath.Join(ours, "s.log")); err != nil || len(kept) != len(log) {
		t.Errorf("the file standard input read is harmed: %v, %d bytes of %d", err, len(kept), len(log))
	}
}
