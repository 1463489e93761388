package e2e

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// inCI says skips for missing tools are failures (.ci/run sets RATELAB_CI=1).
func inCI() bool { return os.Getenv("RATELAB_CI") == "1" }

// built is the ratelab binary, built once for the whole test run (with -race
// when the tests run under it: buildFlags) into a temporary folder that
// TestMain removes.
var built struct {
	once sync.Once
	path string
	err  error
}

// builtRatelab is the path of the binary, built on first use.
func builtRatelab(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "ratelab-e2e-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "ratelab")
		args := append(append([]string{"build", "-o", built.path}, buildFlags...), "ratelab")
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			built.err = errors.New(string(out))
		}
	})
	if built.err != nil {
		t.Fatalf("go build: %v", built.err)
	}
	return built.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.path != "" {
		os.RemoveAll(filepath.Dir(built.path))
	}
	os.Exit(code)
}

// ratelab runs the built binary with args in a new temporary folder, standard
// input empty, and returns its exit code and output.
func ratelab(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(builtRatelab(t), args...)
	cmd.Dir = t.TempDir()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("ratelab %v: %v", args, err)
		}
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// mustRead is the content of the file at path.
func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// sequentialOnly skips t under the race detector: it checks what the command
// line does with its input and outputs, one command at a time, which the
// README's go test ./... runs in full; the race run (CI's -race -short) keeps
// its time for the tests whose commands run goroutines (every scenario's
// lanes, sweeps, the UI, serve, Redis).
func sequentialOnly(t *testing.T) {
	t.Helper()
	if raceBuild && testing.Short() {
		t.Skip("sequential command-line checks: run in full by go test ./..., not again under -race -short")
	}
}
