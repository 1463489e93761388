package scenarios

import (
	"strings"
	"testing"
)

// A hand client's file of sends out of time order (a saved session edited) is
// told to sort its rows: a hand client has no reorder window to raise (the
// reader's advice for a trace), and refuses one.
func TestHandFileOutOfOrder(t *testing.T) {
	doc := strings.Replace(minimal, "pattern = \"constant\"\nrate = 5\n", "pattern = \"hand\"\nkey = \"a\"\nfile = \"sent.csv\"\n", 1)
	_, err := parse(t, doc, map[string]string{"sent.csv": "time_ms,key,cost\n10,a,1\n5,a,1\n"})
	want := `sent.csv:3: a request sent at 5.000ms comes before one sent at 10.000ms (line 2); the requests sent by hand replay in the order of their times: sort the rows by time_ms`
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "reorder") {
		t.Errorf("error %v\nwant %q, and no word of a reorder window", err, want)
	}
	if _, err := parse(t, strings.Replace(doc, "file = \"sent.csv\"\n", "file = \"sent.csv\"\nreorder_window = \"1s\"\n", 1), map[string]string{"sent.csv": "time_ms,key,cost\n10,a,1\n5,a,1\n"}); err == nil {
		t.Error("a hand client took a reorder_window")
	}
}
