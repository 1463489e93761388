package scenarios

import (
	"strings"
	"testing"
)

// extractFile has a leading comment, comments inside and above scenarios, a
// lesson whose text holds a line that looks like a scenario header, and an
// inline comment.
const extractFile = `# The file's own comment: not part of any scenario.

[[scenario]]
name = "a"
lesson = """
A lesson that quotes TOML:
[[scenario]]
and goes on.
"""
duration = "1s"
# inside a: kept with it
[scenario.policy]
limit = 5 # five a second

[[scenario.client]]
name = "c"
pattern = "constant"
rate = 2

[[scenario.claim]]
id = "scenario"
says = "the lesson cites this claim as [scenario]"
lane = "token-bucket"
metric = "accepted"
op = ">="
value = 0

# above b: belongs to b
# (two lines of it)
[[scenario]]
name = "b"
duration = "2s"
[scenario.policy]
limit = 7
[[scenario.client]]
name = "c"
pattern = "constant"
rate = 3
`

func TestExtract(t *testing.T) {
	src := Source{Name: "x.toml"}
	blockA := extractFile[strings.Index(extractFile, "[[scenario]]\nname = \"a\""):strings.Index(extractFile, "\n# above b")]
	blockB := extractFile[strings.Index(extractFile, "# above b"):]
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"a"}, blockA},
		{[]string{"b"}, blockB},
		{[]string{"b", "a"}, blockB + "\n" + blockA},
		{[]string{"a", "b"}, blockA + "\n" + blockB},
	} {
		got, err := Extract(src, []byte(extractFile), tc.names)
		if err != nil {
			t.Fatalf("%v: %v", tc.names, err)
		}
		if got != tc.want {
			t.Errorf("%v:\n%s\nwant\n%s", tc.names, got, tc.want)
		}
		if strings.Contains(got, "The file's own comment") {
			t.Errorf("%v: the file's own comment was copied", tc.names)
		}
		if _, err := Parse(src, []byte(got)); err != nil {
			t.Errorf("%v: the text does not parse: %v", tc.names, err)
		}
	}
	if _, err := Extract(src, []byte(extractFile), []string{"c"}); err == nil || !strings.Contains(err.Error(), `unknown scenario "c" in x.toml; did you mean "a"?`) {
		t.Errorf("an unknown name: %v", err)
	}
	if _, err := Extract(src, []byte(extractFile), []string{"nothing-like-it"}); err == nil || !strings.Contains(err.Error(), "known: a, b") {
		t.Errorf("an unknown name with none near: %v", err)
	}
}

// A file whose scenarios are not [[scenario]] tables cannot be cut: Extract
// says so rather than return text that reads back differently.
func TestExtractRefusesWhatItCannotCut(t *testing.T) {
	inline := `scenario = [{ name = "a", duration = "1s", policy = { limit = 5 }, client = [{ name = "c", pattern = "constant", rate = 1 }] }]
`
	if _, err := Parse(Source{Name: "i.toml"}, []byte(inline)); err != nil {
		t.Fatalf("the inline file should be a valid scenario file: %v", err)
	}
	if _, err := Extract(Source{Name: "i.toml"}, []byte(inline), []string{"a"}); err == nil || !strings.Contains(err.Error(), "cannot tell where each is written") {
		t.Errorf("inline scenarios: %v", err)
	}
}
