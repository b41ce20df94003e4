package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy/judgepool"
)

var errWrongLabels = errors.New("wrong labels")

// benchConfig is how pairs are judged.
type benchConfig struct {
	// Timeout is verdict_timeout; Budget the refute budget.
	Timeout, Budget time.Duration
	// MaxQueryBytes is max_query_size.
	MaxQueryBytes int
	// Cold judges each pair with a fresh judge.
	Cold bool
	// Only restricts the run to one query.
	Only string
	// PG, when set, checks every statement on PostgreSQL (EXPLAIN).
	PG *pgChecker
}

// proxyDefaults are the judge settings a proxy gets from a config file
// that names none: config.Default's verdict_timeout and max_query_size,
// and refute_budget 0, which the wiring reads as config.DefaultRefuteBudget
// (cmd/pgequiv/wiring_judge.go refuteOptions).
func proxyDefaults() benchConfig {
	c := config.Default()
	return benchConfig{Timeout: c.VerdictTimeout, Budget: c.RefuteBudgetInForce(), MaxQueryBytes: int(c.MaxQuerySize)}
}

// judgeDeadline mirrors proxy/judging/deadline.go: of verdict_timeout
// the proxy keeps 5%, at most 100 ms, to deliver the verdict, and gives
// the judge the rest.
func judgeDeadline(timeout time.Duration) time.Duration {
	return timeout - min(timeout/20, 100*time.Millisecond)
}

// query is one TPC-DS statement.
type query struct {
	ID  string // "7", or "14a" for the first statement of query14.sql
	SQL string
}

type bench struct {
	schema  *catalog.Schema
	queries []query
}

var queryFile = regexp.MustCompile(`^query(\d+)\.sql$`)

// load reads dir/schema.sql and dir/queryN.sql in N order.
func load(dir string) (*bench, error) {
	ddl, err := os.ReadFile(filepath.Join(dir, "schema.sql"))
	if err != nil {
		return nil, err
	}
	s, err := catalog.LoadDDL(string(ddl), catalog.Postgres)
	if err != nil {
		return nil, fmt.Errorf("schema.sql: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	type file struct {
		n    int
		name string
	}
	var files []file
	for _, e := range entries {
		if m := queryFile.FindStringSubmatch(e.Name()); m != nil {
			n, _ := strconv.Atoi(m[1])
			files = append(files, file{n, e.Name()})
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no query*.sql files", dir)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].n < files[j].n })
	b := &bench{schema: s}
	for _, f := range files {
		text, err := os.ReadFile(filepath.Join(dir, f.name))
		if err != nil {
			return nil, err
		}
		stmts, err := pg.SplitWithParser(string(text), true)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		for i, st := range stmts {
			id := strconv.Itoa(f.n)
			if len(stmts) > 1 {
				id += string(rune('a' + i))
			}
			b.queries = append(b.queries, query{ID: id, SQL: st})
		}
	}
	return b, nil
}

// result is one judged pair.
type result struct {
	Query      string        `json:"query"`
	Kind       string        `json:"kind"`
	Equivalent bool          `json:"equivalent_rewrite"`
	Label      string        `json:"label"`
	Reason     string        `json:"reason,omitempty"`
	Latency    time.Duration `json:"latency_ns"`
	// PlanProve is the judgement less its search and scores: planning,
	// rules and proof (scripts/proversuite measures the same).
	PlanProve time.Duration       `json:"plan_prove_ns"`
	Timings   equivalence.Timings `json:"timings"`
	TimedOut  bool                `json:"timed_out,omitempty"`
	Error     string              `json:"error,omitempty"`
	// Unplanned says the reference itself does not plan.
	Unplanned bool `json:"reference_unplanned,omitempty"`
	// PGError is PostgreSQL's refusal of the candidate (with -pg).
	PGError string `json:"pg_error,omitempty"`
	SQL     string `json:"candidate,omitempty"`
}

// judgeAll judges every pair in order, one at a time (latency, not
// throughput, is measured), calling each with its result.
func judgeAll(ctx context.Context, b *bench, cfg benchConfig, each func(result)) ([]result, error) {
	opts := equivalence.Options{MaxQueryBytes: cfg.MaxQueryBytes}
	opts.Refute.Budget = cfg.Budget
	local, err := judgepool.NewLocal(judgepool.LocalOptions{})
	if err != nil {
		return nil, err
	}
	var out []result
	for _, q := range b.queries {
		if cfg.Only != "" && q.ID != cfg.Only && strings.TrimRight(q.ID, "ab") != cfg.Only {
			continue
		}
		ref, vs, err := variants(q.SQL)
		if err != nil {
			r := result{Query: q.ID, Kind: "identity", Label: "error", Error: err.Error(), Unplanned: true}
			if cfg.PG != nil {
				r.PGError = cfg.PG.explain(ctx, q.SQL)
			}
			each(r)
			out = append(out, r)
			continue
		}
		for _, v := range vs {
			judge := local.Judge
			if cfg.Cold {
				judge = func(ctx context.Context, s *catalog.Schema, ref, cand string, o equivalence.Options) (equivalence.Verdict, error) {
					return equivalence.Judge(ctx, s, ref, cand, o)
				}
			}
			r := judgeOne(ctx, judge, b.schema, q.ID, ref, v, opts, cfg.Timeout)
			if cfg.PG != nil {
				r.PGError = cfg.PG.explain(ctx, v.SQL)
			}
			each(r)
			out = append(out, r)
		}
	}
	return out, nil
}

type judgeFunc func(context.Context, *catalog.Schema, string, string, equivalence.Options) (equivalence.Verdict, error)

func judgeOne(ctx context.Context, judge judgeFunc, s *catalog.Schema, id, ref string, v variant, opts equivalence.Options, timeout time.Duration) result {
	ctx, cancel := context.WithTimeout(ctx, judgeDeadline(timeout))
	defer cancel()
	start := time.Now()
	verdict, err := judge(ctx, s, ref, v.SQL, opts)
	r := result{Query: id, Kind: v.Kind, Equivalent: v.Equivalent, Latency: time.Since(start), SQL: v.SQL}
	r.Timings = verdict.Timings
	r.PlanProve = verdict.Timings.Total - verdict.Timings.Refute - verdict.Timings.Score
	// The proxy answers "timed out" when the verdict is not there by
	// verdict_timeout; a judge that overran its context by less than
	// that still counts as on time there, as here.
	r.TimedOut = errors.Is(err, context.DeadlineExceeded) || r.Latency >= timeout
	switch {
	case err != nil:
		r.Label, r.Error = "error", err.Error()
		if r.TimedOut {
			r.Label = "timeout"
		} else {
			r.Unplanned = true // Judge's error: the reference did not plan
		}
	default:
		r.Label = string(verdict.Label)
		r.Reason = reason(verdict)
		if len(verdict.Differences) > 0 {
			r.Unplanned = verdict.Differences[0].Component == equivalence.ComponentReferenceUnsupported
		}
	}
	return r
}

// reason says in one line why a verdict is what it is, without the rule
// list that leads Verdict.Summary (long on these queries): the first
// difference, the counterexample, or what the search did.
func reason(v equivalence.Verdict) string {
	var parts []string
	if v.Likely != "" {
		parts = append(parts, fmt.Sprintf("%s, score %.3f", v.Likely, v.Score))
	}
	if len(v.Differences) > 0 {
		parts = append(parts, v.Differences[0].String())
	}
	if v.Counterexample != nil {
		parts = append(parts, "counterexample found")
	}
	if v.LeansDifferent != "" {
		parts = append(parts, "leans different: "+v.LeansDifferent)
	}
	if s := v.Search; s != nil {
		d := fmt.Sprintf("search: %d databases agreed", s.Instances)
		if s.CannotExecute != "" {
			d = "search cannot execute: " + s.CannotExecute
		}
		if len(s.Unpopulated) > 0 {
			d += fmt.Sprintf(", %d tables never populated", len(s.Unpopulated))
		}
		parts = append(parts, d)
	}
	parts = append(parts, v.Notes...)
	return strings.Join(parts, "; ")
}
