package refute

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Searches run in two tiers. Typical databases come first: declared
// foreign keys hold, no stored value is NULL, and no table a query reads
// is empty. A difference there is one ordinary data shows. Only then does
// the search widen to every database the schema's declared constraints
// allow, where differences that need a NULL, an empty table or (when
// foreign keys are not trusted) an orphaned row live. Both kinds are
// real counterexamples; Counterexample.Needs tells them apart, because a
// user shadow-testing a rewrite reads "differs on ordinary data" and
// "differs only when a nullable column holds NULL" differently.

// Needs names what a counterexample relies on beyond typical data.
const (
	NeedsNull        = "a NULL in a nullable column"
	NeedsEmptyTable  = "an empty table"
	NeedsOrphanedRow = "a row whose declared foreign key has no parent"
	// NeedsNonInteger: SQLite keeps 5.5 or 'abc' as given in an INTEGER
	// column of an ordinary (not STRICT) table, other than the rowid
	// alias; the Inserts show the value.
	NeedsNonInteger = "a non-integer (REAL or TEXT) in a SQLite INTEGER column"
)

// nonIntegers reports whether db holds a non-integer in a SQLite INTEGER
// column (see constraints.nonIntegers).
func nonIntegers(s *catalog.Schema, db exec.Database) bool {
	if s.Dialect != catalog.SQLite {
		return false
	}
	for _, t := range s.Tables {
		if t.IsView() {
			continue
		}
		for _, row := range db[t.Name] {
			for i, v := range row {
				if i < len(t.Columns) && !v.IsNull() && v.K != exec.KInt && looseInteger(s.Dialect, t, i) {
					return true
				}
			}
		}
	}
	return false
}

// typical are the constraints of the first tier.
func typical(read map[string]bool) constraints {
	return constraints{trustFK: true, noNulls: true, nonEmpty: true, read: read}
}

// readTables lists the base tables either plan scans, subqueries
// included: the tables whose emptiness matters.
func readTables(plans ...*plan.Plan) map[string]bool {
	read := map[string]bool{}
	var node func(n *plan.Node)
	node = func(n *plan.Node) {
		n.WalkNodes(func(m *plan.Node) {
			if m.Op == plan.OpScan && m.Table != nil {
				read[m.Table.Name] = true
			}
			// Walk, not WalkDeep: node enters each subquery itself, once.
			m.Exprs(func(e **plan.Expr) {
				plan.Walk(*e, func(x *plan.Expr) {
					if x.Kind == plan.Subquery && x.Sub != nil {
						node(x.Sub)
					}
				})
			})
		})
	}
	for _, p := range plans {
		if p != nil && p.Root != nil {
			node(p.Root)
		}
	}
	return read
}

// needs lists what db relies on beyond typical data; nil when it is a
// typical database itself. k are the search's constraints: a read table
// is needed empty only where the search could give it rows (with the
// fillers of k.opaque, see opaque.go).
func needs(s *catalog.Schema, db exec.Database, read map[string]bool, k constraints) []string {
	var nulls, empty, orphan bool
	for _, t := range s.Tables {
		if t.IsView() {
			continue
		}
		rows := db[t.Name]
		if len(rows) == 0 && read[t.Name] && !(constraints{opaque: k.opaque}).cannotHoldRows(s, t) {
			empty = true
		}
		for _, row := range rows {
			for i, v := range row {
				nulls = nulls || (v.IsNull() && executable(s.Dialect, &t.Columns[i]) && t.Columns[i].Generated == "")
			}
			for _, fk := range t.ForeignKeys {
				orphan = orphan || !fkHolds(db, fk, row)
			}
		}
	}
	var out []string
	if nulls {
		out = append(out, NeedsNull)
	}
	if empty {
		out = append(out, NeedsEmptyTable)
	}
	if orphan {
		out = append(out, NeedsOrphanedRow)
	}
	return out
}

// The shape of a difference, beside what the database needs: two
// results that hold the same rows but not as often (duplicates), or
// results one of which a LIMIT cut through rows tied on its sort key
// (ties). A reader weighs "the candidate drops duplicate rows" apart
// from "the candidate returns other rows".

// onlyDuplicates reports whether two differing results hold the same
// set of rows: the difference persists only in how often rows repeat,
// and deduplicating both results removes it.
func onlyDuplicates(a, b *exec.Result, ignoreColumnOrder bool) bool {
	if a == nil || b == nil || a.Nondeterministic || b.Nondeterministic {
		return false
	}
	da, db := distinctRows(a), distinctRows(b)
	if len(da.Rows) == len(a.Rows) && len(db.Rows) == len(b.Rows) {
		return false // neither repeats a row
	}
	return !differs(da, db, ignoreColumnOrder)
}

// distinctRows is r's rows, each once, unordered.
func distinctRows(r *exec.Result) *exec.Result {
	seen := map[string]bool{}
	out := &exec.Result{}
	for _, row := range r.Rows {
		if k := rowKey(row, nil); !seen[k] {
			seen[k] = true
			out.Rows = append(out.Rows, row)
		}
	}
	return out
}

// cutTies reports whether either result is ordered and a LIMIT cut
// through rows tied on its sort key: the executor calls such a result
// nondeterministic, and the comparison counted it only because the
// sizes differ whichever tied rows the engine keeps (countFixed).
func cutTies(a, b *exec.Result) bool {
	tied := func(r *exec.Result) bool {
		return r != nil && r.Ordered && r.Nondeterministic && r.CountFixed
	}
	return tied(a) || tied(b)
}
