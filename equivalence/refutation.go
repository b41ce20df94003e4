package equivalence

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// DefaultRefuteBudget is the wall-clock safety net of the counterexample
// search of one pair. The search ends by its count of databases
// (DefaultRefuteInstances, with a fixed seed), so what it finds is the
// same on any machine however busy; the clock ends it only where
// databases are slow to run, and the verdict then says so (Search.Cut).
const DefaultRefuteBudget = 2 * time.Second

// DefaultRefuteInstances is how many databases the judge's search tries
// at most. Differences show early (on the shared Spider pairs, the median
// refuted pair differs on its first few databases), so the cap costs few
// refutations, and it makes a surviving pair's search end by count rather
// than by the clock: its evidence (Verdict.Search) then does not depend on
// how busy the machine is.
const DefaultRefuteInstances = 256

// RefuteOptions tune the counterexample search the judge runs on pairs it
// cannot prove equivalent. The zero value searches with the defaults.
type RefuteOptions struct {
	// Off skips the search: verdicts are then what structure alone says.
	Off bool
	// Budget bounds the search's wall-clock time per pair (minimization
	// of a found database adds at most a quarter); 0 means
	// DefaultRefuteBudget. The judge's context deadline bounds it too.
	Budget time.Duration
	// MaxInstances bounds the databases tried; 0 means
	// DefaultRefuteInstances.
	MaxInstances int
	// Seed picks the databases; the same seed tries the same ones.
	Seed uint64
}

// Counterexample is a database on which the two queries return different
// results: the proof behind a not_equivalent verdict.
type Counterexample struct {
	// Inserts fill the database, in the schema's dialect, parents first.
	// Tables not named are empty.
	Inserts []string `json:"inserts"`
	// Rows is the number of rows in the database.
	Rows int `json:"rows"`
	// Params are the values bound to the queries' parameters ($1, $2,
	// ...) on which they differ: the same $n in both queries is one value.
	// Empty for queries without parameters.
	Params []Param `json:"params,omitempty"`
	// Reference and Candidate are what each query returns on it.
	Reference ResultSample `json:"reference"`
	Candidate ResultSample `json:"candidate"`
	// Needs is empty when the difference shows on ordinary data (no
	// NULLs, no empty tables, foreign keys hold); otherwise it names what
	// the database has beyond that, e.g. "a NULL in a nullable column".
	Needs []string `json:"needs,omitempty"`
	// ColumnOrderOnly is true when the results hold the same values and
	// differ only in the order of their columns: not equivalent under the
	// strict column-order policy, and no database showed more.
	ColumnOrderOnly bool `json:"column_order_only,omitempty"`
	// RowOrderOnly is true when the results hold the same rows, which the
	// reference orders (two different rows in different sort groups) and
	// the candidate, with no ORDER BY, returns in an order it does not
	// promise: the engine may return them in any order.
	RowOrderOnly bool `json:"row_order_only,omitempty"`
	// Class names what the difference rests on, every condition that
	// holds (ClassNull, ClassDuplicates, ...), or ClassOrdinary alone:
	// the classification readers of evaluation files count by.
	Class []string `json:"class,omitempty"`
}

// Classes of a counterexample (Counterexample.Class).
const (
	ClassOrdinary    = "ordinary"     // ordinary data shows it
	ClassNull        = "null"         // needs a NULL in a nullable column
	ClassEmptyTable  = "empty_table"  // needs an empty table
	ClassOrphanedRow = "orphaned_row" // needs a row breaking a declared foreign key
	ClassNonInteger  = "non_integer"  // needs a non-integer in a SQLite INTEGER column
	ClassDuplicates  = "duplicates"   // the results differ only in how often rows repeat
	ClassTies        = "ties"         // a LIMIT cuts through rows tied on the sort key
	ClassColumnOrder = "column_order" // the results differ only in column order
	ClassRowOrder    = "row_order"    // the candidate does not promise the reference's order
	ClassOther       = "other"        // a need this list does not name
)

// ClassNames is every class, in the order summaries list them.
var ClassNames = []string{ClassOrdinary, ClassNull, ClassEmptyTable, ClassOrphanedRow, ClassNonInteger, ClassDuplicates, ClassTies, ClassColumnOrder, ClassRowOrder, ClassOther}

// classify names the counterexample's classes from its needs and the
// shape of its results.
func classify(ce *refute.Counterexample) []string {
	var out []string
	for _, n := range ce.Needs {
		switch n {
		case refute.NeedsNull:
			out = append(out, ClassNull)
		case refute.NeedsEmptyTable:
			out = append(out, ClassEmptyTable)
		case refute.NeedsOrphanedRow:
			out = append(out, ClassOrphanedRow)
		case refute.NeedsNonInteger:
			out = append(out, ClassNonInteger)
		default:
			out = append(out, ClassOther)
		}
	}
	for _, c := range []struct {
		on   bool
		name string
	}{{ce.Duplicates, ClassDuplicates}, {ce.Ties, ClassTies}, {ce.ColumnOrderOnly, ClassColumnOrder}, {ce.RowOrderOnly, ClassRowOrder}} {
		if c.on {
			out = append(out, c.name)
		}
	}
	if len(out) == 0 {
		out = []string{ClassOrdinary}
	}
	return out
}

// Weak reports whether the counterexample needs unusual data or differs
// only in column order: proof of a difference all the same, but one that
// ordinary use may never show.
func (c *Counterexample) Weak() bool { return len(c.Needs) > 0 || c.ColumnOrderOnly }

// ResultSample is the start of a query's result.
type ResultSample struct {
	// Count is the number of rows in the whole result.
	Count int `json:"count"`
	// Rows are its first rows, values in text form, NULL as "NULL".
	Rows [][]string `json:"rows"`
}

// Search records how hard the refuter tried on a pair it did not refute.
type Search struct {
	// Instances is the number of databases both queries ran on and
	// agreed; Typical of them held ordinary data.
	Instances int `json:"instances"`
	Typical   int `json:"typical"`
	// CannotExecute says why the search did not run, when the executor
	// does not model one of the queries.
	CannotExecute string `json:"cannot_execute,omitempty"`
	// DisplayOnly shows results that compared the same (under =, as the
	// judge compares them) but printed differently, such as 1.0 and
	// 1.00: a display-only difference, named rather than hidden.
	DisplayOnly string `json:"display_only,omitempty"`
	// Unpopulated lists the tables the queries read that no database of
	// the search gave a row (a type or CHECK the generator could not
	// meet): agreement on such databases is no evidence of equivalence,
	// and SearchEvidence counts the search as none.
	Unpopulated []string `json:"unpopulated,omitempty"`
	// Cut is true when the search's wall-clock budget, not its count of
	// databases, ended it: another run, on a machine more or less busy,
	// may try more or fewer databases.
	Cut bool `json:"cut,omitempty"`
}

// Strength says in words how strong the evidence of a search is.
func (s Search) Strength() string {
	if s.CannotExecute != "" {
		return "not searched (" + s.CannotExecute + ")"
	}
	if len(s.Unpopulated) > 0 {
		return fmt.Sprintf("no difference on %d generated databases, none with a row in %s: no evidence", s.Instances, strings.Join(s.Unpopulated, ", "))
	}
	if s.Cut {
		return fmt.Sprintf("no difference on %d generated databases (the search's time budget ended it)", s.Instances)
	}
	return fmt.Sprintf("no difference on %d generated databases", s.Instances)
}

// String is the one-line form: "differ on a 2-row database: reference
// returns 1 row (3), candidate returns 1 row (2)".
func (c *Counterexample) String() string { return c.summary(nil) }

func (c *Counterexample) summary(redact func(string) string) string {
	var b strings.Builder
	b.WriteString("differ")
	if c.ColumnOrderOnly {
		b.WriteString(" only in column order")
	}
	if c.RowOrderOnly {
		b.WriteString(" in row order (the candidate has no ORDER BY)")
	}
	if len(c.Params) > 0 {
		b.WriteString(" for " + c.paramList(redact))
	}
	fmt.Fprintf(&b, " on a %d-row database", c.Rows)
	if len(c.Needs) > 0 {
		b.WriteString(" with " + strings.Join(c.Needs, " and "))
	}
	fmt.Fprintf(&b, ": reference returns %s, candidate returns %s", c.Reference.summary(redact), c.Candidate.summary(redact))
	return b.String()
}

func (r ResultSample) summary(redact func(string) string) string {
	noun := "rows"
	if r.Count == 1 {
		noun = "row"
	}
	s := fmt.Sprintf("%d %s", r.Count, noun)
	if len(r.Rows) > 0 {
		shown := make([]string, 0, min(len(r.Rows), 3))
		for i, row := range r.Rows {
			if i == 3 {
				shown = append(shown, "…")
				break
			}
			vals := make([]string, len(row))
			for j, v := range row {
				if redact != nil {
					v = redactValue(redact, v)
				}
				vals[j] = shownValue(v)
			}
			shown = append(shown, "("+strings.Join(vals, ", ")+")")
		}
		s += " " + strings.Join(shown, " ")
	}
	return s
}

// Detail is the full text: the database as INSERT statements, then both
// results.
func (c *Counterexample) Detail() string { return c.detail(nil) }

func (c *Counterexample) detail(redact func(string) string) string {
	var b strings.Builder
	if len(c.Params) > 0 {
		b.WriteString("-- parameters: " + c.paramList(redact) + "\n")
	}
	if len(c.Inserts) == 0 {
		b.WriteString("-- every table empty\n")
	}
	for _, ins := range c.Inserts {
		if redact != nil {
			ins = redact(ins)
		}
		b.WriteString(ins + "\n")
	}
	fmt.Fprintf(&b, "-- reference returns %s\n-- candidate returns %s", c.Reference.summary(redact), c.Candidate.summary(redact))
	return b.String()
}

// Redacted returns a copy with redact applied to the INSERT statements
// and to every result value (as the SQL literal it would be), for logs
// that must not show data.
func (c *Counterexample) Redacted(redact func(string) string) *Counterexample {
	if c == nil {
		return nil
	}
	out := *c
	out.Inserts = make([]string, len(c.Inserts))
	for i, s := range c.Inserts {
		out.Inserts[i] = redact(s)
	}
	hide := func(r ResultSample) ResultSample {
		rows := make([][]string, len(r.Rows))
		for i, row := range r.Rows {
			rows[i] = make([]string, len(row))
			for j, v := range row {
				rows[i][j] = redactValue(redact, v)
			}
		}
		return ResultSample{Count: r.Count, Rows: rows}
	}
	out.Reference, out.Candidate = hide(c.Reference), hide(c.Candidate)
	if c.Params != nil {
		out.Params = make([]Param, len(c.Params))
		for i, p := range c.Params {
			out.Params[i] = redactParam(redact, p)
		}
	}
	return &out
}

// shownValue is a result value as a row shows it: an empty string, or one
// with blanks at its ends, is quoted (an empty string shows as a pair of
// quotes), so that a row of one empty string does not print as ().
func shownValue(v string) string {
	if v == "" || strings.TrimSpace(v) != v {
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	}
	return v
}

// redactValue applies a SQL-text redactor to one result value by way of
// the literal that writes it: a redactor that hides literals hides it,
// one that keeps text keeps it. NULL is not data and stays.
func redactValue(redact func(string) string, v string) string {
	if v == "NULL" {
		return v
	}
	lit := "'" + strings.ReplaceAll(v, "'", "''") + "'"
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		lit = v
	}
	if r := redact(lit); r != lit {
		return r
	}
	return v
}

// execPlan is a query's plan as written, for execution: normalized but
// without the ESM+ rewrites (so that a rewrite rule's bug cannot make a
// counterexample). prepare keeps a copy; without one it is planned again
// from the text on first use, and kept.
type execPlan struct {
	sql string
	mu  sync.Mutex
	p   *plan.Plan
}

// withSQL records the query's text on e, creating e when prepare did not
// copy the plan.
func (e *execPlan) withSQL(sql string) *execPlan {
	if e == nil {
		return &execPlan{sql: sql}
	}
	e.sql = sql
	return e
}

func (e *execPlan) get(ctx context.Context, s *catalog.Schema) (*plan.Plan, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.p != nil {
		return e.p, nil
	}
	p, err := planner.Plan(ctx, s, e.sql, planner.Options{})
	if err != nil {
		return nil, err
	}
	e.p = p
	return p, nil
}
