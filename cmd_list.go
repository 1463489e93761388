package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

const listUsage = `
Usage: ratelab list [--file F]

Lists the scenarios: the embedded catalogue, or the file given.`

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
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, s := range c.Scenarios {
		fmt.Fprintf(tw, "%s\t%s\n", s.Name, strings.TrimSpace(s.Title))
	}
	return tw.Flush()
}
