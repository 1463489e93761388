package main

import (
	"fmt"
	"slices"
	"strings"

	"ratelab/sim"
)

// watchKeys makes --watch-keys (comma-separated key names) the keys whose levels
// the series CSV follows, in place of the scenario's watch_keys. A name that is
// not a key of the scenario, an empty name or one listed twice is a usage error
// that names the flag and some keys to choose from.
func watchKeys(cfg *sim.Config, list string) error {
	if list == "" {
		return nil
	}
	var keys []int
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		k, ok := sim.KeyIndex(cfg, name)
		switch {
		case name == "":
			return usagef("run: --watch-keys %q names an empty key; list keys separated by commas, like --watch-keys %s", list, strings.Join(keyNames(cfg, 2), ","))
		case !ok:
			return usagef("run: --watch-keys: %q is not a key any client of scenario %q uses; its keys include %s", name, cfg.Name, someKeys(cfg, 5, ", "))
		case slices.Contains(keys, k):
			return usagef("run: --watch-keys names %q twice; list each key once", name)
		}
		keys = append(keys, k)
	}
	cfg.WatchKeys = keys
	return nil
}

// someKeys is up to n of cfg's key names, joined by sep, with how many there
// are when there are more.
func someKeys(cfg *sim.Config, n int, sep string) string {
	s := strings.Join(keyNames(cfg, n), sep)
	if len(cfg.Keys) > n {
		s += fmt.Sprintf("%s… (%d keys)", sep, len(cfg.Keys))
	}
	return s
}

// keyNames is the names of cfg's first n keys.
func keyNames(cfg *sim.Config, n int) []string {
	var names []string
	for _, k := range cfg.Keys[:min(n, len(cfg.Keys))] {
		names = append(names, k.Name)
	}
	return names
}
