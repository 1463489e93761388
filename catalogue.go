package main

import (
	"ratelab/scenarios"
)

// loadCatalogue reads the scenario file given with --file, or the embedded
// catalogue; any problem in it is a usage error (exit 2).
func loadCatalogue(file string) (*scenarios.Catalogue, error) {
	var c *scenarios.Catalogue
	var err error
	if file == "" {
		c, err = scenarios.LoadFS(embedded, "scenarios.toml")
	} else {
		c, err = scenarios.Load(file)
	}
	if err != nil {
		return nil, usageError{err}
	}
	return c, nil
}
