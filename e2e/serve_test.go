package e2e

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// served is a ratelab serve running for a test.
type served struct {
	url  string
	cmd  *exec.Cmd
	mu   sync.Mutex
	errs strings.Builder
	done chan error
}

// stderr is what it has said on standard error so far.
func (s *served) stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errs.String()
}

// said waits, at most for within, until standard error holds text (the lines
// after "listening on" come a moment later, later still under the race
// detector), and says whether it does.
func (s *served) said(text string, within time.Duration) bool {
	for end := time.Now().Add(within); ; time.Sleep(10 * time.Millisecond) {
		if strings.Contains(s.stderr(), text) {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// stop sends SIGTERM and waits for it to exit, returning its exit code.
func (s *served) stop(t *testing.T) int {
	t.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		t.Fatalf("ratelab serve did not stop within 20 s of SIGTERM")
	}
	return s.cmd.ProcessState.ExitCode()
}

// startServe runs ratelab serve with args (and --listen 127.0.0.1:0) in dir and
// returns it once it says where it listens; it is stopped, by its PID, when the
// test ends.
func startServe(t *testing.T, dir string, args ...string) *served {
	t.Helper()
	cmd := exec.Command(builtRatelab(t), append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Dir = dir
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{cmd: cmd, done: make(chan error, 1)}
	first := make(chan string, 1)
	go func() {
		r := bufio.NewReader(pipe)
		sent := false
		for {
			line, err := r.ReadString('\n')
			s.mu.Lock()
			s.errs.WriteString(line)
			s.mu.Unlock()
			if !sent && strings.Contains(line, "listening on ") {
				first <- line
				sent = true
			}
			if err != nil {
				if !sent {
					close(first)
				}
				s.done <- cmd.Wait()
				return
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-s.done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
			}
		}
	})
	select {
	case line, ok := <-first:
		if !ok {
			t.Fatalf("ratelab serve %v exited before listening:\n%s", args, s.stderr())
		}
		_, rest, _ := strings.Cut(line, "listening on ")
		s.url, _, _ = strings.Cut(rest, " ")
		if !strings.HasPrefix(s.url, "http://127.0.0.1:") {
			t.Fatalf("ratelab serve listens at %q, not loopback", s.url)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("ratelab serve said nothing in 30 s:\n%s", s.stderr())
	}
	return s
}

// ratelab serve --config nginx.conf answers as nginx: 200 within the burst,
// then the configuration's limit_req_status with the rule in the body; behind
// --upstream an allowed request gets the upstream's own answer; SIGTERM stops
// it with exit 0 and the --csv log written, a row a request with the statuses
// the client saw.
func TestServeCommand(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "upstream saw %s", r.URL.Path)
	}))
	defer upstream.Close()
	dir := t.TempDir()
	conf := `events {}
http {
    limit_req_zone $binary_remote_addr zone=perip:1m rate=2r/s;
    server {
        listen 8080;
        location / {
            limit_req zone=perip burst=2 nodelay;
            limit_req_status 429;
        }
    }
}
`
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, dir, "--config", "nginx.conf", "--upstream", upstream.URL, "--csv", "log.csv")
	var statuses []int
	for i := range 5 {
		resp, err := http.Get(s.url + fmt.Sprintf("/item/%d", i))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		statuses = append(statuses, resp.StatusCode)
		switch resp.StatusCode {
		case http.StatusOK:
			if want := fmt.Sprintf("upstream saw /item/%d", i); string(body) != want {
				t.Errorf("request %d: body %q, want the upstream's %q", i, body, want)
			}
		case http.StatusTooManyRequests:
			if !strings.Contains(string(body), "nginx.conf:7 limit_req zone=perip") {
				t.Errorf("request %d: the refusal %q does not name its rule", i, body)
			}
		default:
			t.Errorf("request %d: status %d", i, resp.StatusCode)
		}
	}
	// nginx's burst=2 is a bucket of 3: three pass at once, the rest wait half a second
	if want := []int{200, 200, 200, 429, 429}; fmt.Sprint(statuses) != fmt.Sprint(want) {
		t.Errorf("statuses %v, want %v", statuses, want)
	}
	if code := s.stop(t); code != 0 {
		t.Fatalf("exit %d after SIGTERM:\n%s", code, s.stderr())
	}
	f, err := os.Open(filepath.Join(dir, "log.csv"))
	if err != nil {
		t.Fatalf("the log was not written: %v\n%s", err, s.stderr())
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 || rows[0][0] != "time_ms" || rows[0][13] != "status" {
		t.Fatalf("the log has %d rows, header %v", len(rows), rows[0])
	}
	for i, row := range rows[1:] {
		if row[13] != fmt.Sprint(statuses[i]) || row[6] != "127.0.0.1" {
			t.Errorf("log row %d: %v, want status %d for key 127.0.0.1", i+1, row, statuses[i])
		}
	}
}

// Bad input to serve and infer is a usage error (exit 2) that names the fix,
// before anything listens or is sent.
func TestServeAndInferBadInput(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.jsonl"), []byte("{\"time\": 1, \"status\": 200}\n{\"time\": 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := "events {}\nhttp {\n limit_req_zone $binary_remote_addr zone=z:1m rate=2r/s;\n server {\n  listen 8080;\n  location / { limit_req zone=z; }\n }\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"serve"}, "give --scenario NAME"},
		{[]string{"serve", "--scenario", "boundary-burst", "--listen", "0.0.0.0:0"}, "add --public"},
		{[]string{"serve", "--scenario", "boundary-burst", "--key", "cookie:x"}, "unknown part"},
		{[]string{"serve", "--scenario", "boundary-burst", "--upstream", "ftp://x"}, "http:// or https://"},
		{[]string{"serve", "--scenario", "hot-key-shards"}, "is sharded"},
		{[]string{"serve", "--scenario", "boundary-burst", "--max-keys", "0"}, "--max-keys must be at least 1"},
		{[]string{"serve", "--config", filepath.Join(dir, "nginx.conf"), "--csv", filepath.Join(dir, "nginx.conf")}, "--csv"},
		{[]string{"serve", "--scenario", "boundary-burst", "--listen", "127.0.0.1:99999"}, "a port from 0 to 65535"},
		{[]string{"infer"}, "give --log FILE"},
		{[]string{"infer", "--probe", "http://10.1.2.3/"}, "--allow-host 10.1.2.3"},
		{[]string{"infer", "--probe", "http://example.com/"}, "--allow-host example.com"},
		{[]string{"infer", "--probe", "http://127.0.0.1:1/", "--allow-host", "other"}, "does not name"},
		{[]string{"infer", "--probe", "http://127.0.0.1:1/", "--budget", "5"}, "--budget must be"},
		{[]string{"infer", "--log", filepath.Join(dir, "bad.jsonl")}, "bad.jsonl:2: no status"},
		{[]string{"infer", "--log", filepath.Join(dir, "missing.jsonl")}, "no such file"},
		{[]string{"infer", "--log", filepath.Join(dir, "bad.jsonl"), "--header", "X: y"}, "are for --probe"},
	} {
		code, _, stderr := ratelab(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.says) {
			t.Errorf("ratelab %v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.says)
		}
	}
}

// serve keys a limit by the header its product's expression reads.
func TestServeKeysByTheProductsHeader(t *testing.T) {
	dir := t.TempDir()
	conf := `events {}
http {
    limit_req_zone $http_x_api_key zone=perkey:1m rate=1r/m;
    server {
        listen 8080;
        location / { limit_req zone=perkey burst=1 nodelay; limit_req_status 429; }
    }
}
`
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, dir, "--config", "nginx.conf")
	if !s.said("keyed by ", 10*time.Second) || !strings.Contains(s.stderr(), "keyed by header:x-api-key") {
		t.Errorf("the lane is not keyed by the header:\n%s", s.stderr())
	}
	var got []int
	for _, key := range []string{"a", "a", "a", "b", "b", "c"} {
		req, _ := http.NewRequest(http.MethodGet, s.url+"/", nil)
		req.Header.Set("X-Api-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got = append(got, resp.StatusCode)
	}
	// burst=1 is a bucket of two a key
	if want := []int{200, 200, 429, 200, 200, 200}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("statuses %v, want %v: each key its own bucket", got, want)
	}
}
