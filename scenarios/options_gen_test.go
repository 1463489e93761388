package scenarios

import (
	"os"
	"testing"

	"ratelab/scenarios/internal/genoptions"
)

// An algorithm's option is declared once, a field of algorithms.Options tagged
// with its key and the Option its algorithm lists: options_gen.go, the schema's
// side of it, is what genoptions writes from them (go generate ./scenarios).
func TestOptionsSpecIsGenerated(t *testing.T) {
	want, err := genoptions.Source()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("options_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Error("options_gen.go is not what algorithms.Options and the algorithms' options say: run go generate ./scenarios")
	}
}
