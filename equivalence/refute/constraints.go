package refute

import (
	"context"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// constraints are the facts every database of a search satisfies: the
// schema's declared constraints (foreign keys only when trusted) and the
// data assumptions of Options.
type constraints struct {
	trustFK, noNulls, nonEmpty bool
	// nonIntegers lets a SQLite INTEGER column that the engine does not
	// keep to integers (catalog.Table.IntegerOnly) hold what SQLite
	// stores there as given: a REAL such as 5.5, or a text that reads as
	// no number ('abc'). See nonInteger.
	nonIntegers bool
	// read limits nonEmpty to the tables the queries read (nil: all):
	// an unrelated empty table changes no result.
	read map[string]bool
	// opaque marks, per table, the columns of unmodelled types that get
	// filler values because no plan of the search evaluates them (see
	// opaque.go); the others stay NULL.
	opaque map[string][]bool
}

// fills reports whether column i of t gets filler values.
func (k constraints) fills(t *catalog.Table, i int) bool {
	cols := k.opaque[t.Name]
	return i < len(cols) && cols[i]
}

// mustHoldRows reports whether nonEmpty applies to t.
func (k constraints) mustHoldRows(s *catalog.Schema, t *catalog.Table) bool {
	return k.nonEmpty && (k.read == nil || k.read[t.Name]) && !k.cannotHoldRows(s, t)
}

// cannotHoldRows reports whether no row of t can be generated: a column
// of a type the executor does not model can only be NULL, which a NOT
// NULL column forbids. (noNulls leaves such columns NULL: they are not
// values the search chooses.) Nor can a partitioned table (its rows are
// its partitions'), a table with a CHECK no row satisfies, one whose
// rules are not modelled, or one with a NOT NULL enum of no labels.
func (k constraints) cannotHoldRows(s *catalog.Schema, t *catalog.Table) bool {
	for i, c := range t.Columns {
		if !executable(s.Dialect, &c) && c.NotNull && c.Generated == "" && !k.fills(t, i) {
			return true
		}
		if c.Enum != nil && len(c.Enum) == 0 && c.NotNull {
			return true
		}
	}
	if r := rulesFor(s, t); r != nil && (r.partitioned || r.alwaysEmpty || r.err != nil) {
		return true
	}
	return false
}

// validate reports the first declared constraint db violates, or "" when
// it satisfies them all (foreign keys only when trusted).
func validate(s *catalog.Schema, db exec.Database, trustFK bool) string {
	return constraints{trustFK: trustFK}.check(s, db)
}

// check reports the first constraint db violates, or "" when it
// satisfies them all. A table that can never hold a row (see
// generator.empty) is exempt from nonEmpty.
func (k constraints) check(s *catalog.Schema, db exec.Database) string {
	trustFK := k.trustFK
	for _, t := range s.Tables {
		if t.IsView() {
			continue
		}
		rows := db[t.Name]
		if len(rows) == 0 && k.mustHoldRows(s, t) {
			return t.Name + " is empty"
		}
		if len(rows) == 0 {
			continue
		}
		// The declared types, read once for all rows (on the stack for
		// tables of up to 32 columns).
		var buf [32]typeSpec
		specs := buf[:0]
		for _, c := range t.Columns {
			specs = append(specs, specIn(s.Dialect, c))
		}
		for j, row := range rows {
			for i, c := range t.Columns {
				if row[i].IsNull() {
					// A generated column's NULL is computed, not chosen.
					if c.NotNull || (k.noNulls && executable(s.Dialect, &c) && c.Generated == "") {
						return t.Name + "." + c.Name + " is NULL"
					}
					continue
				}
				if looseIntegerValue(s, t, i, row[i]) {
					continue // SQLite keeps 5.5 or 'abc' in an ordinary INTEGER column as given
				}
				if !executable(s.Dialect, &c) && isFiller(&c, row[i]) {
					continue // a value of the type, written as PostgreSQL prints it
				}
				if f, ok := fitTo(c.Type, specs[i], row[i]); !ok || f.K == exec.KTimestamp && f.B != row[i].B {
					return t.Name + "." + c.Name + " does not fit " + c.TypeSQL
				}
			}
			if !keysHold(t, rows, row, j) {
				return t.Name + ": duplicate key"
			}
			if trustFK {
				for _, fk := range t.ForeignKeys {
					if !fkHolds(db, fk, row) {
						return t.Name + ": dangling reference to " + fk.RefTable
					}
				}
			}
		}
		if r := rulesFor(s, t); r != nil {
			if msg := r.validate(context.Background(), rows); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// assumptionBroken reports the first of the tier's assumptions (noNulls,
// nonEmpty) db breaks, or "". It is check without the declared
// constraints, which the generator keeps by construction and every
// reported counterexample is validated against again (legalCounterexample):
// the search asks it of every typical database, where the full check was
// a tenth of the generator's time.
func (k constraints) assumptionBroken(s *catalog.Schema, db exec.Database) string {
	for _, t := range s.Tables {
		if t.IsView() {
			continue
		}
		rows := db[t.Name]
		if len(rows) == 0 {
			if k.mustHoldRows(s, t) {
				return t.Name + " is empty"
			}
			continue
		}
		if !k.noNulls {
			continue
		}
		for i, c := range t.Columns {
			if !executable(s.Dialect, &c) || c.Generated != "" {
				continue
			}
			for _, row := range rows {
				if row[i].IsNull() {
					return t.Name + "." + c.Name + " is NULL"
				}
			}
		}
	}
	return ""
}
