// Package report writes a run as one self-contained HTML page: the lesson and its
// claims judged (✓/✗ with their numbers), the comparison table with what each
// column means, each lane's verdict, the charts (package plots) as inline SVG,
// the policy and seed, and links to the CSV files written beside it.
//
// The page needs nothing else: its styles are inline, its figures are SVG
// elements in it, it runs no JavaScript and fetches nothing, so it opens offline
// in any browser, and a print stylesheet keeps each figure and the table on a
// page of their own when printed. The same run gives the same page, byte for
// byte (nothing in it depends on when or where it was written).
package report

import (
	"bytes"
	_ "embed"
	"html/template"
	"io"
	"strings"

	"ratelab/internal/format"
	"ratelab/plots"
	"ratelab/present"
	"ratelab/sim"
)

// Page is what the report shows.
type Page struct {
	Config  *sim.Config
	Metrics []sim.Metrics
	Claims  []sim.ClaimResult
	// Answers are the lesson's questions answered on the run.
	Answers []sim.Answer
	Figures []plots.Figure
	// Notes are what the figures leave out and why.
	Notes []string
	// Files are the data files beside the page, linked by name.
	Files []File
	// Command is the command that makes the page again.
	Command string
}

// File is a file written beside the page, and what it holds.
type File struct{ Name, What string }

//go:embed page.html
var pageHTML string

var page = template.Must(template.New("page").Parse(pageHTML))

// view is Page as the template reads it: every string formatted.
type view struct {
	Name, Title, Policy, Command string
	Seed                         uint64
	Duration                     string
	Lesson                       []string
	Claims                       []claimView
	Questions                    []questionView
	Columns                      []present.Column
	Rows                         [][]string
	Verdicts                     []string
	// Lead is the first figure (the busiest moment, when there is one), shown
	// at the top; Figures the others.
	Lead    *figureView
	Figures []figureView
	Notes   []string
	Files   []File
	Traces  string
}

type claimView struct {
	Holds              bool
	Mark, Says, ID, Of string
}

// questionView is a question of the lesson and the run's answer, which the page
// shows folded, to be predicted first.
type questionView struct {
	At, Ask, Choices, Answer string
	Claim, Mark, Show        string
}

type figureView struct {
	ID, Title string
	SVG       template.HTML
}

// Write renders p as HTML to w.
func Write(w io.Writer, p Page) error {
	cfg := p.Config
	v := view{
		Name: cfg.Name, Title: cfg.Title, Policy: present.Describe(cfg), Seed: cfg.Seed,
		Duration: format.Duration(cfg.Duration), Command: p.Command,
		Columns: present.ColumnsFor(cfg), Notes: p.Notes, Files: p.Files,
	}
	for _, para := range strings.Split(strings.TrimSpace(cfg.Lesson), "\n\n") {
		if para = strings.Join(strings.Fields(para), " "); para != "" {
			v.Lesson = append(v.Lesson, para)
		}
	}
	for _, c := range p.Claims {
		v.Claims = append(v.Claims, claimView{Holds: c.Holds, Mark: present.Mark(c), Says: c.Says, ID: c.ID, Of: present.Evidence(cfg, c)})
	}
	for _, a := range p.Answers {
		q := cfg.Questions[a.Question]
		v.Questions = append(v.Questions, questionView{At: format.Duration(q.At), Ask: q.Ask, Choices: present.Choices(q),
			Answer: present.AnswerText(cfg, a), Claim: a.Claim.ID, Mark: present.Mark(a.Claim), Show: q.Show})
	}
	for _, m := range p.Metrics {
		var row []string
		for _, c := range v.Columns {
			row = append(row, c.Cell(m))
		}
		v.Rows = append(v.Rows, row)
		v.Verdicts = append(v.Verdicts, present.Verdict(cfg, m))
	}
	for _, f := range p.Figures {
		svg, err := f.InlineSVG()
		if err != nil {
			return err
		}
		v.Figures = append(v.Figures, figureView{ID: "fig-" + f.Name, Title: f.Title, SVG: template.HTML(svg)})
	}
	if len(v.Figures) > 0 {
		v.Lead, v.Figures = &v.Figures[0], v.Figures[1:]
	}
	var traces bytes.Buffer
	present.WriteTraceNotes(&traces, cfg)
	v.Traces = strings.TrimSpace(traces.String())
	return page.Execute(w, v)
}
