package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
)

// engineFlags are the flags check, eval and cases share for choosing the
// judge's engines: the refuter's budget and the GMN. By default every
// engine runs, so the default user gets the strongest metric.
type engineFlags struct {
	gmn          *bool
	refute       *bool
	refuteBudget *time.Duration
	instances    *int
}

func addEngineFlags(fs *flag.FlagSet, gmnDefault bool) *engineFlags {
	return &engineFlags{
		gmn:          fs.Bool("gmn", gmnDefault, "score with the shipped graph matching network too (about 1 ms a pair; --gmn=false leaves it out)"),
		refute:       fs.Bool("refute", true, "search for a counterexample database on pairs not proved equivalent (--refute=false: structure only)"),
		refuteBudget: fs.Duration("refute-budget", equivalence.DefaultRefuteBudget, "wall-clock safety net of the counterexample search per pair: the search ends by its count of databases (--refute-instances), so results do not depend on the machine's load, unless this ends it first (the verdict then says so)"),
		instances:    fs.Int("refute-instances", 0, "most databases the search tries per pair (0: the default)"),
	}
}

// apply sets the engines on opts (after judgeOptions).
func (e *engineFlags) apply(opts *equivalence.Options) error {
	if *e.refuteBudget <= 0 {
		return fmt.Errorf("--refute-budget must be positive")
	}
	if *e.instances < 0 {
		return fmt.Errorf("--refute-instances must not be negative")
	}
	opts.Refute = equivalence.RefuteOptions{Off: !*e.refute, Budget: *e.refuteBudget, MaxInstances: *e.instances}
	return nil
}

// searchLine says how the counterexample searches were bounded, for the
// header of a summary: by their count of databases and seed, so that a
// rerun on any machine gives the same verdicts, with the clock as a
// safety net; cut is how many searches the clock ended.
func searchLine(r equivalence.RefuteOptions, cut int) string {
	if r.Off {
		return "search: off"
	}
	n := r.MaxInstances
	if n <= 0 {
		n = equivalence.DefaultRefuteInstances
	}
	budget := r.Budget
	if budget <= 0 {
		budget = equivalence.DefaultRefuteBudget
	}
	return fmt.Sprintf("search: at most %d databases a pair, seed %d; a %s clock safety net ended %d searches", n, r.Seed, budget, cut)
}

// cutSearch reports whether the clock ended v's search.
func cutSearch(v equivalence.Verdict) bool { return v.Search != nil && v.Search.Cut }

// writeRunHeader writes a batch summary's first two lines: the judge
// policy, and how the counterexample searches of results were bounded.
func writeRunHeader[R any](w io.Writer, policy string, r equivalence.RefuteOptions, results []R, verdict func(R) equivalence.Verdict) {
	fmt.Fprintf(w, "policy: %s\n", policy)
	cut := 0
	for _, res := range results {
		if cutSearch(verdict(res)) {
			cut++
		}
	}
	fmt.Fprintln(w, searchLine(r, cut))
}
