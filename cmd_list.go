package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"ratelab/scenarios"
)

const listUsage = `
Usage: ratelab list [--file F]

Lists the scenarios: the embedded catalogue, or the file given, a line each:
the name, the part of the course it belongs to (when the file gives parts; the
catalogue is a course, in the order to take it: basics, windows and buckets,
queues and meters, retries and herds, distributed and stores, products, your
own traffic), and the title.`

func runList(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("list", listUsage, stderr)
	file := fs.String("file", "", "a scenario `FILE` instead of the embedded catalogue")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := notEmpty(fs, "file"); err != nil {
		return err
	}
	c, err := loadCatalogue(*file)
	if err != nil {
		return err
	}
	// the course's part, when the file gives parts (the catalogue does, in the
	// course's order): a learner takes them top to bottom
	coursed := slices.ContainsFunc(c.Scenarios, func(s scenarios.Scenario) bool { return s.Part.Set() })
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, s := range c.Scenarios {
		if coursed {
			part := s.Part.Heading()
			if part == "" {
				part = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, part, strings.TrimSpace(s.Title))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\n", s.Name, strings.TrimSpace(s.Title))
	}
	return tw.Flush()
}
