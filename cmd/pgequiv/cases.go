package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

type caseResult struct {
	ID      string              `json:"id"`
	Tier    string              `json:"tier"`
	Expect  string              `json:"expect"`
	Pass    bool                `json:"pass"`
	Reason  string              `json:"reason,omitempty"`
	Verdict equivalence.Verdict `json:"verdict"`
}

func runCases(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cases", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object per case")
	dialect := fs.String("dialect", "postgres", "SQL dialect of the cases")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: pgequiv cases [--json] FILE.yaml")
		return exitError{2}
	}
	cf, err := dataset.ReadCasesFile(fs.Arg(0))
	if err != nil {
		return err
	}
	d, err := catalog.ParseDialect(*dialect)
	if err != nil {
		return err
	}
	s, err := catalog.LoadDDL(cf.Schema, d)
	if err != nil {
		return fmt.Errorf("%s: schema: %w", fs.Arg(0), err)
	}
	var corePass, coreN, hardPass, hardN int
	enc := json.NewEncoder(stdout)
	for _, c := range cf.Cases {
		r := runCase(ctx, s, c)
		if c.Tier == dataset.TierCore {
			coreN++
			if r.Pass {
				corePass++
			}
		} else {
			hardN++
			if r.Pass {
				hardPass++
			}
		}
		if *asJSON {
			if err := enc.Encode(r); err != nil {
				return err
			}
			continue
		}
		mark := "PASS"
		if !r.Pass {
			mark = "FAIL"
		}
		line := fmt.Sprintf("%s %-4s %-48s expect %-28s got %s", mark, c.Tier, c.ID, c.Expect, r.Verdict.Label)
		if r.Reason != "" {
			line += " — " + r.Reason
		}
		fmt.Fprintln(stdout, line)
	}
	fmt.Fprintf(stdout, "core: %d/%d passed; hard: %d/%d passed\n", corePass, coreN, hardPass, hardN)
	if corePass < coreN {
		return exitError{1}
	}
	return nil
}

func runCase(ctx context.Context, s *catalog.Schema, c dataset.Case) caseResult {
	r := caseResult{ID: c.ID, Tier: string(c.Tier), Expect: string(c.Expect)}
	var opts equivalence.Options
	for k, v := range c.Policy {
		if err := opts.SetPolicy(k, v); err != nil {
			r.Reason = err.Error()
			return r
		}
	}
	v, err := equivalence.Judge(ctx, s, c.Reference, c.Candidate, opts)
	if err != nil {
		r.Reason = err.Error()
		return r
	}
	r.Verdict = v
	switch c.Expect {
	case dataset.Equivalent:
		r.Pass = v.Label == equivalence.Equivalent
	case dataset.NotEquivalent:
		r.Pass = v.Label == equivalence.NotEquivalent || v.Label == equivalence.Unknown
	case dataset.EquivalentUnderAssumptions:
		r.Pass = v.Label == equivalence.EquivalentUnderAssumptions
		if r.Pass {
			for _, want := range c.Assumptions {
				if !assumptionNamed(v.Assumptions, want) {
					r.Pass = false
					r.Reason = fmt.Sprintf("assumption %q not named", want)
				}
			}
		}
	}
	if !r.Pass && r.Reason == "" && len(v.Differences) > 0 {
		r.Reason = v.Differences[0].String()
	}
	return r
}

// assumptionNamed matches an assumption written in a case file ("dogs is
// not empty", "foreign key dogs.breed_code references breeds.breed_code
// holds") against the verdict's by kind and subject, not by wording.
func assumptionNamed(got []equivalence.Assumption, want string) bool {
	w := strings.ToLower(want)
	kind := equivalence.AssumptionKind("")
	switch {
	case strings.Contains(w, "empty"):
		kind = equivalence.AssumeNonEmpty
	case strings.Contains(w, "foreign key") || strings.Contains(w, "references"):
		kind = equivalence.AssumeForeignKey
	case strings.Contains(w, "primary key"):
		kind = equivalence.AssumePrimaryKeyNotNull
	}
	for _, a := range got {
		if a.Kind != kind {
			continue
		}
		// Every identifier of the subject must appear in the wanted text.
		ok := true
		for _, tok := range strings.FieldsFunc(strings.ToLower(a.Subject), func(r rune) bool { return r == ' ' || r == ',' }) {
			if tok == "references" || tok == "the" || tok == "rows" || tok == "of" || tok == "that" || tok == "pass" || tok == "filter" {
				continue
			}
			if !strings.Contains(w, tok) {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}
