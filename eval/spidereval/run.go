package spidereval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/eval/evaluation"
	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Unparsed is the level of a gold query Hardness cannot read.
const Unparsed = "unparsed"

// Result is the judge's verdict on one item.
type Result struct {
	Item
	Level   string // Spider hardness, or BIRD's difficulty when given
	Verdict equivalence.Verdict
	Err     error // the gold query could not be planned
	// Exec is the item's execution accuracy (eval --execute), with the
	// class and reason of a disagreement with the judge; nil without.
	Exec              *Execution
	Disagreement, Why string
}

// AttachExecution sets each result's execution accuracy and its
// disagreement with the judge's label.
func AttachExecution(results []Result, execs []Execution) {
	for i := range results {
		e := execs[i]
		results[i].Exec = &e
		results[i].Disagreement, results[i].Why = disagreement(results[i], &e)
	}
}

// Options configure Run.
type Options struct {
	Judge    equivalence.Options
	Workers  int    // 0: all cores
	Progress func() // told of each finished item; may be nil
	// Preset, when PresetTestSuite, judges under the official metric's
	// conventions (preset.go); "" judges SQL semantics.
	Preset string
}

// Run judges every item's prediction against its gold query. Every
// database is looked up first, so a missing one is reported, naming the
// first item that needs it, before any judging.
func Run(ctx context.Context, items []Item, schemas evaluation.SchemaSource, opts Options) ([]Result, error) {
	if opts.Preset != "" && opts.Preset != PresetTestSuite {
		return nil, fmt.Errorf("spidereval: unknown preset %q (want %s)", opts.Preset, PresetTestSuite)
	}
	checked := map[string]bool{}
	pairs := make([]dataset.Pair, len(items))
	for i, it := range items {
		if !checked[it.DB] {
			if _, err := schemas.Get(it.DB, sqliteDialect); err != nil {
				return nil, fmt.Errorf("spidereval: %s: %w", it.GoldAt, err)
			}
			checked[it.DB] = true
		}
		pairs[i] = dataset.Pair{ID: strconv.Itoa(it.Index), DB: it.DB, Reference: it.Gold, Candidate: it.Pred, Dialect: "sqlite"}
		if opts.Preset == PresetTestSuite {
			pairs[i].Reference, pairs[i].Candidate = RemoveDistinct(it.Gold), RemoveDistinct(it.Pred)
		}
	}
	rs, err := evaluation.Run(ctx, pairs, schemas, evaluation.Options{Judge: opts.Judge, Workers: opts.Workers, Progress: opts.Progress})
	if err != nil {
		return nil, err
	}
	out := make([]Result, len(items))
	for i, it := range items {
		out[i] = Result{Item: it, Level: level(it), Verdict: rs[i].Verdict, Err: rs[i].Err}
	}
	return out, nil
}

func level(it Item) string {
	if it.Difficulty != "" {
		return it.Difficulty
	}
	h, err := Hardness(it.Gold)
	if err != nil {
		return Unparsed
	}
	return h
}

// Refuted reports whether a verdict says the prediction differs from the
// gold query on some database of the schema: a not_equivalent label,
// which the judge gives only with a proof or a counterexample.
func Refuted(v equivalence.Verdict) bool { return v.Label == equivalence.NotEquivalent }

// record is one line of the per-item JSONL output.
type record struct {
	Index   int                  `json:"index"`
	DB      string               `json:"db_id"`
	Level   string               `json:"hardness"`
	Label   string               `json:"label"`
	Score   float64              `json:"score"`
	Gold    string               `json:"gold"`
	Pred    string               `json:"pred"`
	Verdict *equivalence.Verdict `json:"verdict,omitempty"`
	// Counterexample repeats the verdict's counterexample (the database
	// telling the queries apart, with both results) at the top, where
	// readers of these files look for it.
	Counterexample json.RawMessage `json:"counterexample,omitempty"`
	Error          string          `json:"error,omitempty"`
	// Invalid is why the prediction would not run (label "invalid"): the
	// engine refuses it, and execution accuracy counts it wrong.
	Invalid string `json:"invalid,omitempty"`
	// Class is a not_equivalent item's classes: the counterexample's
	// (equivalence.Counterexample.Class), or no_database.
	Class []string `json:"class,omitempty"`
	// Execution is the official execution accuracy (--execute), and
	// Disagreement/Why where it and the label part.
	Execution    *Execution `json:"execution,omitempty"`
	Disagreement string     `json:"disagreement,omitempty"`
	Why          string     `json:"why,omitempty"`
}

// WriteJSONL writes one JSON object per result: index, db_id, hardness,
// label, score, both queries and the whole verdict (with its
// counterexample and LLM opinion when it has them), or error.
func WriteJSONL(w io.Writer, results []Result) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range results {
		rec := record{Index: r.Index, DB: r.DB, Level: r.Level, Gold: r.Gold, Pred: r.Pred, Execution: r.Exec, Disagreement: r.Disagreement, Why: r.Why}
		if r.Err != nil {
			rec.Label, rec.Error = "error", r.Err.Error()
		} else {
			v := r.Verdict
			rec.Label, rec.Score, rec.Verdict = string(v.Label), v.Score, &v
			if why, ok := v.Invalid(); ok {
				rec.Label, rec.Invalid = LabelInvalid, why
			}
			ce, err := counterexample(v)
			if err != nil {
				return fmt.Errorf("spidereval: result %d: %w", r.Index, err)
			}
			rec.Counterexample = ce
			rec.Class = classOf(v)
		}
		if err := enc.Encode(rec); err != nil {
			return fmt.Errorf("spidereval: write result %d: %w", r.Index, err)
		}
	}
	return nil
}

// counterexample returns the verdict's "counterexample" as JSON, or nil.
// It reads the verdict's JSON form so that it needs no change as the
// judge's counterexample grows fields.
func counterexample(v equivalence.Verdict) (json.RawMessage, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, err
	}
	ce := fields["counterexample"]
	if string(ce) == "null" {
		return nil, nil
	}
	return ce, nil
}

// Level is the summary of one hardness level (or "all").
type Level struct {
	Level            string  `json:"level"`
	Count            int     `json:"count"`
	ProvedEquivalent float64 `json:"proved_equivalent"` // equivalent or under assumptions
	Equivalent       float64 `json:"equivalent"`        // plain equivalent only
	Refuted          float64 `json:"refuted"`
	Unknown          float64 `json:"unknown"` // the judge's own unknowns: not invalid ones
	Invalid          float64 `json:"invalid"` // the prediction would not run (counted wrong)
	MeanScore        float64 `json:"mean_score"`
	Errors           int     `json:"errors"` // gold query did not plan
	// EX and TestSuiteEX are the official execution accuracy (--execute
	// only), over the items whose gold query ran.
	EX          *float64 `json:"ex,omitempty"`
	TestSuiteEX *float64 `json:"test_suite_ex,omitempty"`
}

// Summary is the per-level table the evaluation scripts print.
type Summary struct {
	// Preset names the official metric's conventions the figures were
	// judged under (PresetTestSuite); empty: SQL semantics.
	Preset  string        `json:"preset,omitempty"`
	Levels  []Level       `json:"levels"` // known levels in Spider/BIRD order, then "all"
	Elapsed time.Duration `json:"-"`
	Seconds float64       `json:"seconds"`
	// Classes counts the not_equivalent items by class (an item counts
	// under each of its classes); Disagreements counts the items by how
	// the judge and test-suite EX part (--execute only).
	Classes       map[string]int `json:"classes,omitempty"`
	Disagreements map[string]int `json:"disagreements,omitempty"`
}

var levelOrder = []string{Easy, Med, Hard, Extra, "simple", "moderate", "challenging"}

// Summarize tallies results per level and overall.
func Summarize(results []Result) Summary {
	type acc struct {
		n, proved, eq, refuted, unknown, invalid, errs int
		score                                          float64
		ran, ex, ts                                    int
	}
	by := map[string]*acc{}
	var order []string
	all := &acc{}
	for _, r := range results {
		a := by[r.Level]
		if a == nil {
			a = &acc{}
			by[r.Level] = a
			order = append(order, r.Level)
		}
		for _, a := range []*acc{a, all} {
			a.n++
			if e := r.Exec; e != nil && e.GoldError == "" {
				a.ran++
				a.ex += b2i(e.EX)
				a.ts += b2i(e.TestSuite)
			}
			if r.Err != nil {
				a.errs++
				continue
			}
			v := r.Verdict
			switch {
			case v.Label.Proved():
				a.proved++
				if v.Label == equivalence.Equivalent {
					a.eq++
				}
			case Refuted(v):
				a.refuted++
			case isInvalid(v):
				a.invalid++
			default:
				a.unknown++
			}
			if !math.IsNaN(v.Score) {
				a.score += v.Score
			}
		}
	}
	mk := func(name string, a *acc) Level {
		l := Level{Level: name, Count: a.n, Errors: a.errs}
		if a.n > 0 {
			n := float64(a.n)
			l.ProvedEquivalent, l.Equivalent, l.Refuted, l.Unknown, l.MeanScore = float64(a.proved)/n, float64(a.eq)/n, float64(a.refuted)/n, float64(a.unknown)/n, a.score/n
			l.Invalid = float64(a.invalid) / n
		}
		if a.ran > 0 {
			ex, ts := float64(a.ex)/float64(a.ran), float64(a.ts)/float64(a.ran)
			l.EX, l.TestSuiteEX = &ex, &ts
		}
		return l
	}
	var s Summary
	done := map[string]bool{}
	for _, name := range levelOrder {
		if a := by[name]; a != nil {
			s.Levels = append(s.Levels, mk(name, a))
			done[name] = true
		}
	}
	for _, name := range order {
		if !done[name] {
			s.Levels = append(s.Levels, mk(name, by[name]))
		}
	}
	s.Levels = append(s.Levels, mk("all", all))
	s.Classes, s.Disagreements = countClasses(results)
	if len(s.Classes) == 0 {
		s.Classes = nil
	}
	executed := false
	for _, r := range results {
		executed = executed || r.Exec != nil
	}
	if !executed {
		s.Disagreements = nil
	}
	return s
}

// Print writes the table as Spider's evaluation.py lays it out: one
// column per level, one row per figure.
func (s Summary) Print(w io.Writer) {
	fmt.Fprintf(w, "%-20s", "")
	for _, l := range s.Levels {
		fmt.Fprintf(w, " %-12s", l.Level)
	}
	fmt.Fprintln(w)
	row := func(name string, f func(Level) string) {
		fmt.Fprintf(w, "%-20s", name)
		for _, l := range s.Levels {
			fmt.Fprintf(w, " %-12s", f(l))
		}
		fmt.Fprintln(w)
	}
	rate := func(x float64) string { return fmt.Sprintf("%.3f", x) }
	row("count", func(l Level) string { return strconv.Itoa(l.Count) })
	fmt.Fprintln(w, "=====================   PGEQUIV VERDICTS (schema only, no data)   =====================")
	row("proved equivalent", func(l Level) string { return rate(l.ProvedEquivalent) })
	row("  of which plain", func(l Level) string { return rate(l.Equivalent) })
	row("refuted", func(l Level) string { return rate(l.Refuted) })
	row("unknown", func(l Level) string { return rate(l.Unknown) })
	row("invalid (wrong)", func(l Level) string { return rate(l.Invalid) })
	row("mean score", func(l Level) string { return rate(l.MeanScore) })
	if s.Levels[len(s.Levels)-1].Errors > 0 {
		row("gold not planned", func(l Level) string { return strconv.Itoa(l.Errors) })
	}
	if s.Levels[len(s.Levels)-1].EX != nil {
		fmt.Fprintln(w, "=====================   EXECUTION ACCURACY (official rules, given databases)   =====================")
		opt := func(x *float64) string {
			if x == nil {
				return "-"
			}
			return rate(*x)
		}
		row("EX", func(l Level) string { return opt(l.EX) })
		row("test-suite EX", func(l Level) string { return opt(l.TestSuiteEX) })
	}
	if len(s.Classes) > 0 {
		fmt.Fprintf(w, "refuted by class:")
		for _, k := range sortedKeys(s.Classes) {
			fmt.Fprintf(w, " %s %d", k, s.Classes[k])
		}
		fmt.Fprintln(w)
	}
	if s.Disagreements != nil {
		fmt.Fprintf(w, "judge vs test-suite EX disagreements:")
		if len(s.Disagreements) == 0 {
			fmt.Fprintf(w, " none")
		}
		for _, k := range sortedKeys(s.Disagreements) {
			fmt.Fprintf(w, " %s %d", k, s.Disagreements[k])
		}
		fmt.Fprintln(w)
	}
	if s.Elapsed > 0 {
		fmt.Fprintf(w, "time: %s\n", s.Elapsed.Round(time.Millisecond))
	}
}

// LabelInvalid is the label of a prediction that would not run: the
// engine refuses it (equivalence.Verdict.Invalid). Its verdict is
// unknown; the label keeps it apart from the judge's real unknowns.
const LabelInvalid = "invalid"

func isInvalid(v equivalence.Verdict) bool {
	_, ok := v.Invalid()
	return ok
}

// sqliteDialect is the dialect of Spider's and BIRD's queries.
const sqliteDialect = catalog.SQLite

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
