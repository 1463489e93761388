package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"ratelab/internal/check"
	"strings"
	"testing"
)

// The completion scripts, run in real shells (bash, fish, zsh) against the built
// binary on the PATH, as a user has them; the words offered are unit-tested in
// the root package (completion_test.go).

// shellFor is the path of shell, or a skip (a failure in CI) when it is not
// installed.
func shellFor(t *testing.T, shell string) string {
	t.Helper()
	path, err := exec.LookPath(shell)
	if err != nil {
		if os.Getenv("RATELAB_CI") == "1" {
			t.Fatalf("%s is not installed; CI must test its completion (.ci/run installs it)", shell)
		}
		t.Skipf("%s is not installed: its completion script is not tested", shell)
	}
	return path
}

// scriptEnv is the environment for a shell running a completion script: the
// built ratelab first on the PATH, as a user has it.
func scriptEnv(t *testing.T) []string {
	bin := builtRatelab(t)
	return append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// runShell runs script in shell with args and returns its standard output.
func runShell(t *testing.T, env []string, shell string, args ...string) string {
	t.Helper()
	cmd := exec.Command(shell, args...)
	cmd.Env = env
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", shell, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// The bash script, sourced in a real bash, registers _ratelab for ratelab, and
// _ratelab called as bash calls it (COMP_WORDS, COMP_CWORD) fills COMPREPLY:
// commands, flags, scenario names, lane lists without a space after them,
// values after bash's split of --flag=value, and file names from compgen.
func TestBashCompletionScript(t *testing.T) {
	sequentialOnly(t)
	bash := shellFor(t, "bash")
	env := scriptEnv(t)
	script := filepath.Join(t.TempDir(), "ratelab.bash")
	_, text, _ := ratelab(t, "completion", "bash")
	check.Setup(t, os.WriteFile(script, []byte(text), 0o644))
	out := runShell(t, env, bash, "--norc", "--noprofile", "-c", `
source "$1"
complete -p ratelab
t() {
    COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
    _ratelab
    printf '%s => %s\n' "$*" "${COMPREPLY[*]}"
}
touch scenario-a.toml other.txt
t ratelab ru
t ratelab run --scen
t ratelab run --scenario boundary-b
t ratelab run --scenario retry-storm --lanes token-bucket,gc
t ratelab run --scenario = thund
t ratelab run --format ''
t ratelab run --file scenario-
t ratelab completion f
`, "bash", script)
	want := `complete -F _ratelab ratelab
ratelab ru => run
ratelab run --scen => --scenario
ratelab run --scenario boundary-b => boundary-burst
ratelab run --scenario retry-storm --lanes token-bucket,gc => token-bucket,gcra
ratelab run --scenario = thund => thundering-herd
ratelab run --format  => table json
ratelab run --file scenario- => scenario-a.toml
ratelab completion f => fish
`
	if out != want {
		t.Errorf("bash completion:\n%s\nwant\n%s", out, want)
	}
}

// The fish script, sourced in a real fish, completes through fish's own
// machinery (complete -C), with the descriptions fish shows.
func TestFishCompletionScript(t *testing.T) {
	fish := shellFor(t, "fish")
	env := scriptEnv(t)
	script := filepath.Join(t.TempDir(), "ratelab.fish")
	_, text, _ := ratelab(t, "completion", "fish")
	check.Setup(t, os.WriteFile(script, []byte(text), 0o644))
	if out := runShell(t, env, fish, "--no-config", "-n", script); out != "" {
		t.Errorf("fish -n: %s", out)
	}
	out := runShell(t, env, fish, "--no-config", "-c", `
source $argv[1]
complete -C 'ratelab run --scen'
complete -C 'ratelab run --scenario boundary-b'
complete -C 'ratelab run --lanes token-bucket,gc'
complete -C 'ratelab sc'
`, script)
	want := "--scenario\tthe scenario to run, by NAME (see ratelab list)\n" +
		"boundary-burst\tBoundary burst: 200 requests in 2 ms, and no window saw a violation\n" +
		"token-bucket,gcra\talgorithm\n" +
		"scenarios\twrite shipped scenarios into a file of your own to start from\n"
	if out != want {
		t.Errorf("fish completion:\n%s\nwant\n%s", out, want)
	}
}

// The zsh script parses (zsh -n), registers _ratelab with compinit when sourced,
// and its function turns ratelab's answer into compadd calls (here a stand-in
// that prints them; zsh's real compadd works only inside completion).
func TestZshCompletionScript(t *testing.T) {
	zsh := shellFor(t, "zsh")
	env := scriptEnv(t)
	script := filepath.Join(t.TempDir(), "_ratelab")
	_, text, _ := ratelab(t, "completion", "zsh")
	check.Setup(t, os.WriteFile(script, []byte(text), 0o644))
	if out := runShell(t, env, zsh, "-f", "-n", script); out != "" {
		t.Errorf("zsh -n: %s", out)
	}
	out := runShell(t, env, zsh, "-f", "-c", `
autoload -U compinit && compinit -u -d "$PWD/.zcompdump"
source "$1"
print -r -- "registered: ${_comps[ratelab]}"
compadd() { local opts=""; while (( $# > 1 )); do opts+="$1 "; shift; done; print -r -- "compadd ${opts}-> ${(j:|:)${(@P)1}}" }
_files() { print -r -- "_files $*" }
t() { words=("$@"); CURRENT=$#; _ratelab }
t ratelab run --scen
t ratelab run --scenario boundary-b
t ratelab run --lanes token-bucket,gc
t ratelab run --csv ''
t ratelab report --out ''
`, "zsh", script)
	want := `registered: _ratelab
compadd -Q -l -d displays -a -> --scenario
compadd -Q -l -d displays -a -> boundary-burst
compadd -Q -S  -l -d displays -a -> token-bucket,gcra
_files 
_files -/
`
	if out != want {
		t.Errorf("zsh completion:\n%s\nwant\n%s", out, want)
	}
}
