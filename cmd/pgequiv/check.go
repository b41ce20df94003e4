package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/equivalence"
	gmnmodel "github.com/pgequiv/pgequiv/gmn/model"
	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// policyFlags collects repeated --policy key=value flags.
type policyFlags []string

func (p *policyFlags) String() string     { return strings.Join(*p, ",") }
func (p *policyFlags) Set(v string) error { *p = append(*p, v); return nil }

// has reports whether a --policy flag set key.
func (p policyFlags) has(key string) bool {
	for _, kv := range p {
		if k, _, _ := strings.Cut(kv, "="); k == key {
			return true
		}
	}
	return false
}

// evalPolicies is the policy set of both eval modes: the given flags, with
// column_order=ignore unless they say otherwise. Text-to-SQL labels come
// from execution accuracy (Spider's test-suite evaluation), which compares
// results up to a permutation of their columns, so a metric that counts a
// reordered SELECT list as wrong disagrees with the labels it is scored
// against. check and the proxy keep the strict default: an application
// reads columns by position.
func evalPolicies(p policyFlags) policyFlags {
	if p.has("column_order") {
		return p
	}
	return append(append(policyFlags{}, p...), "column_order="+equivalence.ColumnOrderIgnore)
}

// loadSchema loads the DDL file (the example schema when none) and
// writes to warn, as file:line, each statement the catalog could not
// model: a verdict over a table it bears on is neither proved nor
// refuted.
func loadSchema(file, dialect string, warn io.Writer) (*catalog.Schema, error) {
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
	s, dropped, err := catalog.LoadDDLReport(ddl, d)
	var se *catalog.SyntaxError
	if errors.As(err, &se) && file != "" {
		return nil, fmt.Errorf("%s:%d:%d: %s", file, se.Line, se.Column, se.Msg)
	}
	if err != nil {
		return nil, err
	}
	for _, dr := range dropped {
		fmt.Fprintf(warn, "%s:%d: not modelled: %s\n", file, dr.Line, dr.What)
	}
	return s, nil
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

// commandOptions are the judge options of check and both eval modes:
// the policies, the engines (GMN, refuter) and the LLM second opinion.
func commandOptions(policies policyFlags, engines *engineFlags, llm *llmFlags) (equivalence.Options, error) {
	opts, err := judgeOptions(policies, *engines.gmn)
	if err != nil {
		return opts, err
	}
	if err := engines.apply(&opts); err != nil {
		return opts, err
	}
	if err := llm.apply(&opts); err != nil {
		return opts, err
	}
	return opts, nil
}

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return check(ctx, args, os.Stdin, stdout, stderr)
}

func check(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	schemaFile := fs.String("schema", "", "PostgreSQL DDL file (default: the bundled example schema)")
	dialect := fs.String("dialect", "postgres", "SQL dialect: postgres or sqlite")
	asJSON := fs.Bool("json", false, "print the verdict as JSON")
	engines := addEngineFlags(fs, true)
	var policies policyFlags
	fs.Var(&policies, "policy", "judge policy key=value (repeatable): column_order, trust_foreign_keys, accept_assumptions, likely_threshold")
	// verdict_timeout's default, so that the CLI and the proxy give a query
	// the same budget.
	timeout := fs.Duration("timeout", config.DefaultVerdictTimeout, "budget for the judgement (0: none); past it, exit 2")
	maxQuery := fs.Int("max-query-bytes", equivalence.DefaultMaxQueryBytes, "longest query judged; a longer one is unknown, \"too large to judge\" (negative: no limit)")
	var llm llmFlags
	llm.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: pgequiv check [flags] REFERENCE CANDIDATE

Each query is SQL text, @FILE to read it from FILE, or - to read it from
standard input (one of the two at most).

Exit status: 0 equivalent (or under accepted assumptions), 1 not, 2 error
or no verdict within --timeout.`)
		fs.PrintDefaults()
	}
	queries, err := parseInterleaved(fs, args)
	if err != nil {
		return exitError{2}
	}
	switch len(queries) {
	case 2:
	case 0:
		return errors.New("missing the REFERENCE and CANDIDATE queries (usage: pgequiv check [flags] REFERENCE CANDIDATE)")
	case 1:
		return errors.New("missing the CANDIDATE query: check compares two queries (usage: pgequiv check [flags] REFERENCE CANDIDATE)")
	default:
		return fmt.Errorf("%d queries given, check takes two: REFERENCE and CANDIDATE (quote each query as one argument)", len(queries))
	}
	if queries[0] == "-" && queries[1] == "-" {
		return errors.New("only one query can be read from standard input (-)")
	}
	if *timeout < 0 {
		return errors.New("--timeout must not be negative")
	}
	ref, err := queryArg("reference", queries[0], stdin)
	if err != nil {
		return err
	}
	cand, err := queryArg("candidate", queries[1], stdin)
	if err != nil {
		return err
	}
	s, err := loadSchema(*schemaFile, *dialect, stderr)
	if err != nil {
		return err
	}
	opts, err := commandOptions(policies, engines, &llm)
	if err != nil {
		return err
	}
	opts.MaxQueryBytes = *maxQuery
	v, err := judgeWithin(ctx, *timeout, s, ref, cand, opts)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(jsonVerdict(v)); err != nil {
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

// queryArg reads a query argument: SQL text, @FILE or - (standard input).
// A query that does not fit in one argument (a 100,000-item IN-list) is
// read from a file.
func queryArg(what, arg string, stdin io.Reader) (string, error) {
	var text string
	switch {
	case arg == "-":
		b, err := io.ReadAll(stdin)
		if err != nil {
			return "", fmt.Errorf("reading the %s from standard input: %w", what, err)
		}
		text, what = string(b), "the "+what+" (standard input)"
	case strings.HasPrefix(arg, "@"):
		b, err := os.ReadFile(arg[1:])
		if err != nil {
			return "", fmt.Errorf("reading the %s from %s: %w", what, arg, err)
		}
		text, what = string(b), "the "+what+" ("+arg[1:]+")"
	default:
		text, what = arg, "the "+what
	}
	// The parser reads C strings: a NUL would cut the query short.
	if err := sqltext.CheckNUL(what, text); err != nil {
		return "", err
	}
	return text, nil
}

// errNoVerdict is a judgement that did not end within --timeout.
var errNoVerdict = errors.New("no verdict within --timeout")

// judgeWithin judges ref and cand within timeout (0: none). The CLI
// returns at the deadline even if the judge is still working: the
// process is about to exit, and the judge stops at its next context check.
func judgeWithin(ctx context.Context, timeout time.Duration, s *catalog.Schema, ref, cand string, opts equivalence.Options) (equivalence.Verdict, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	type result struct {
		v   equivalence.Verdict
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := equivalence.Judge(ctx, s, ref, cand, opts)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		if r.err != nil && errors.Is(r.err, context.DeadlineExceeded) && ctx.Err() != nil {
			return r.v, fmt.Errorf("%w (%v)", errNoVerdict, timeout)
		}
		return r.v, r.err
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return equivalence.Verdict{}, fmt.Errorf("%w (%v)", errNoVerdict, timeout)
		}
		return equivalence.Verdict{}, ctx.Err()
	}
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
	if c := v.Counterexample; c != nil {
		fmt.Fprintf(w, "counterexample: %s\n", c)
		for _, p := range c.Params {
			fmt.Fprintf(w, "             %s\n", p)
		}
		for _, ins := range c.Inserts {
			fmt.Fprintf(w, "             %s\n", ins)
		}
	} else if v.Search != nil && !v.Label.Proved() {
		fmt.Fprintf(w, "search:      %s\n", v.Search.Strength())
	}
	if v.LeansDifferent != "" && v.Label == equivalence.Unknown {
		fmt.Fprintf(w, "leans:       different: %s, though no database has shown it\n", v.LeansDifferent)
	}
	if v.LLM != nil {
		fmt.Fprintf(w, "llm:         %s\n", v.LLM)
	}
	fmt.Fprintf(w, "time:        %s\n", v.Timings.Total)
}
