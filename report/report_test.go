package report

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"ratelab/plots"
	"ratelab/present"
	"ratelab/scenarios"
	"ratelab/sim"
)

// The page holds the lesson, every claim with its mark and numbers (a claim that
// fails shows ✗), the table with every column's meaning, each lane's verdict, the
// charts inline, and the links; it needs nothing outside itself.
func TestPage(t *testing.T) {
	c, err := scenarios.Load("../scenarios.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.Compile("boundary-burst", scenarios.Overrides{Lanes: []string{"fixed-window", "token-bucket"}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.NewRun(cfg, sim.Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	decisions := plots.NewRecorder()
	defer decisions.Close()
	r.OnRows(decisions.Rows)
	if err := r.AdvanceTo(cfg.Duration); err != nil {
		t.Fatal(err)
	}
	d, err := plots.From(r, decisions)
	if err != nil {
		t.Fatal(err)
	}
	figs, notes, err := plots.Figures(d)
	if err != nil {
		t.Fatal(err)
	}
	ms := r.Metrics()
	claims := r.ClaimsOn(ms)
	if len(claims) == 0 {
		t.Fatal("boundary-burst has no claims for these lanes")
	}
	claims[0].Holds = false // as if it failed on this run
	var b bytes.Buffer
	if len(r.Answers()) != 1 {
		t.Fatalf("boundary-burst answers %d questions for these lanes; want its one", len(r.Answers()))
	}
	err = Write(&b, Page{Config: cfg, Metrics: ms, Claims: claims, Answers: r.Answers(), Figures: figs, Notes: notes,
		Files: []File{{Name: "requests.csv", What: "every decision"}}, Command: "ratelab report --scenario boundary-burst"})
	if err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(b.String())
	want := []string{cfg.Title, present.Describe(cfg), `<a href="requests.csv">requests.csv</a>`, "ratelab report --scenario boundary-burst",
		`<li class="fails" id="claim-` + claims[0].ID + `"><span class="mark">✗</span>`, `@media print`,
		// the question, its answer folded to be predicted first
		`<span class="mono">at 1.002s</span> 140 requests arrived at 0.999 s`,
		`<details><summary>The run's answer</summary><p><strong>200</strong>, by the claim <a class="mono" href="#claim-fw-200">[fw-200]</a> ✓. In the UI: the fixed window's panel`}
	for _, cl := range claims[1:] {
		want = append(want, `<li class="holds" id="claim-`+cl.ID+`"><span class="mark">✓</span>`+cl.Says, present.Evidence(cfg, cl))
	}
	for _, col := range present.Columns {
		want = append(want, "<dt>"+col.Title+"</dt><dd>"+col.Help+"</dd>")
	}
	for _, m := range ms {
		want = append(want, present.Verdict(cfg, m), `<th scope="row">`+m.Lane+`</th>`)
	}
	for _, f := range figs {
		want = append(want, `<figure id="fig-`+f.Name+`">`)
	}
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("the page has no %q", w)
		}
	}
	if n := strings.Count(page, "<svg"); n != len(figs) {
		t.Errorf("%d SVG elements for %d figures", n, len(figs))
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "<link") {
		t.Error("the page loads something")
	}
	if !strings.HasPrefix(page, "<!DOCTYPE html>") {
		t.Errorf("the page starts %.40q", page)
	}
}
