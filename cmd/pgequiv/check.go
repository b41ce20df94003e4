package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pgequiv/pgequiv/equivalence"
	gmnmodel "github.com/pgequiv/pgequiv/gmn/model"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// policyFlags collects repeated --policy key=value flags.
type policyFlags []string

func (p *policyFlags) String() string     { return strings.Join(*p, ",") }
func (p *policyFlags) Set(v string) error { *p = append(*p, v); return nil }

func loadSchema(file, dialect string) (*catalog.Schema, error) {
	d, err := catalog.ParseDialect(dialect)
	if err != nil {
		return nil, err
	}
	ddl := catalog.ExampleDDL()
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		ddl = string(b)
	}
	return catalog.LoadDDL(ddl, d)
}

// judgeOptions builds judge options from --policy key=value flags and
// --gmn.
func judgeOptions(policies policyFlags, useGMN bool) (equivalence.Options, error) {
	var opts equivalence.Options
	if useGMN {
		m, err := gmnmodel.Default()
		if err != nil {
			return opts, err
		}
		opts.GMN = m
	}
	for _, p := range policies {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return opts, fmt.Errorf("--policy %q: want key=value", p)
		}
		if err := opts.SetPolicy(k, v); err != nil {
			return opts, err
		}
	}
	return opts, nil
}

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	schemaFile := fs.String("schema", "", "PostgreSQL DDL file (default: the bundled example schema)")
	dialect := fs.String("dialect", "postgres", "SQL dialect: postgres or sqlite")
	asJSON := fs.Bool("json", false, "print the verdict as JSON")
	useGMN := fs.Bool("gmn", false, "add the shipped graph matching network's score (about 1 ms a pair)")
	var policies policyFlags
	fs.Var(&policies, "policy", "judge policy key=value (repeatable): column_order, trust_foreign_keys, accept_assumptions, likely_threshold")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: pgequiv check [flags] REFERENCE CANDIDATE\n\nExit status: 0 equivalent (or under accepted assumptions), 1 not, 2 error.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitError{2}
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return exitError{2}
	}
	s, err := loadSchema(*schemaFile, *dialect)
	if err != nil {
		return err
	}
	opts, err := judgeOptions(policies, *useGMN)
	if err != nil {
		return err
	}
	v, err := equivalence.Judge(ctx, s, fs.Arg(0), fs.Arg(1), opts)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			return err
		}
	} else {
		printVerdict(stdout, v)
	}
	if !opts.Passes(v) {
		return exitError{1}
	}
	return nil
}

func printVerdict(w io.Writer, v equivalence.Verdict) {
	label := string(v.Label)
	if v.Likely != "" {
		label += " (" + v.Likely + ")"
	}
	fmt.Fprintf(w, "verdict:     %s\n", label)
	fmt.Fprintf(w, "score:       %.3f  (esm %.2f, relpm %.2f, ast-te %.2f", v.Score, v.Scores.ESM, v.Scores.RelPM, v.Scores.ASTTE)
	if v.Scores.GMN > 0 {
		fmt.Fprintf(w, ", gmn %.2f", v.Scores.GMN)
	}
	fmt.Fprintln(w, ")")
	for i, a := range v.Assumptions {
		if i == 0 {
			fmt.Fprintf(w, "assumptions: %s\n", a)
		} else {
			fmt.Fprintf(w, "             %s\n", a)
		}
	}
	if len(v.Rules) > 0 {
		fmt.Fprintf(w, "rules:       %s\n", strings.Join(v.Rules, ", "))
	}
	for i, d := range v.Differences {
		if i == 0 {
			fmt.Fprintf(w, "differences: %s\n", d)
		} else {
			fmt.Fprintf(w, "             %s\n", d)
		}
	}
	fmt.Fprintf(w, "time:        %s\n", v.Timings.Total)
}
