package refute

import (
	"math/big"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// convert carries a parent key value into a referencing column whose
// declared type may differ (Spider schemas reference numeric keys from
// text columns).
func convert(v exec.Value, to, from catalog.Column) (exec.Value, bool) {
	if v.IsNull() || to.Type == from.Type {
		return v, true
	}
	out, err := exec.Parse(to.Type, v.String())
	if err != nil {
		return exec.Null, false
	}
	return fit(to, out)
}

// sameValue is SQL equality of two non-NULL stored values, across the
// kinds a foreign key may join.
func sameValue(a, b exec.Value) bool {
	if a.IsNull() || b.IsNull() {
		return false
	}
	// The common kinds without exec.Compare's generality: this runs for
	// every key column of every generated row.
	switch {
	case a.K == exec.KInt && b.K == exec.KInt:
		return a.I == b.I
	case a.K == exec.KText && b.K == exec.KText:
		return a.S == b.S
	case a.K == exec.KNumeric && b.K == exec.KNumeric:
		return ratEqual(a.R, b.R)
	}
	if a.K == b.K || (isNum(a.K) && isNum(b.K)) {
		c, err := exec.Compare(a, b)
		return err == nil && c == 0
	}
	return a.String() == b.String()
}

// ratEqual is x.Cmp(y) == 0 without Cmp's allocations: rationals are
// kept normalized, so equal ones have equal numerators and denominators.
func ratEqual(x, y *big.Rat) bool {
	if x == y {
		return true
	}
	if x.Num().Cmp(y.Num()) != 0 {
		return false
	}
	if xi, yi := x.IsInt(), y.IsInt(); xi || yi {
		return xi == yi
	}
	return x.Denom().Cmp(y.Denom()) == 0
}

func isNum(k exec.Kind) bool { return k == exec.KInt || k == exec.KNumeric || k == exec.KFloat }

// keysHold reports whether row keeps the primary key and every UNIQUE
// constraint against rows (skipping index skip); a NULL in a unique set
// never conflicts.
func keysHold(t *catalog.Table, rows [][]exec.Value, row []exec.Value, skip int) bool {
	for _, c := range t.PrimaryKey {
		if row[c].IsNull() && t.Columns[c].NotNull {
			return false // (a SQLite rowid table's key may hold NULLs: see catalog.Keys)
		}
	}
	if t.PrimaryKey != nil && !setHolds(t, t.PrimaryKey, rows, row, skip) {
		return false
	}
	for _, set := range t.Unique {
		if !setHolds(t, set, rows, row, skip) {
			return false
		}
	}
	return true
}

// setHolds reports whether no row but rows[skip] equals row on set,
// each column compared under its collation (keyEqual).
func setHolds(t *catalog.Table, set []int, rows [][]exec.Value, row []exec.Value, skip int) bool {
	{
		for j, other := range rows {
			if j == skip {
				continue
			}
			same := true
			for _, c := range set {
				if !keyEqual(&t.Columns[c], row[c], other[c]) {
					same = false
					break
				}
			}
			if same {
				return false
			}
		}
	}
	return true
}

// fkHolds reports whether row's foreign key fk references an existing
// row (MATCH SIMPLE: a NULL in any referencing column satisfies it).
func fkHolds(db exec.Database, fk catalog.ForeignKey, row []exec.Value) bool {
	for _, c := range fk.Columns {
		if row[c].IsNull() {
			return true
		}
	}
	for _, p := range db[fk.RefTable] {
		match := true
		for j, c := range fk.Columns {
			if !sameValue(row[c], p[fk.RefColumns[j]]) {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// repairFKs restores referential integrity after rows were dropped or
// generated out of order (reference cycles): a dangling reference
// becomes NULL where its columns allow, else its row is dropped, until
// nothing changes. It reports whether it changed anything.
func repairFKs(s *catalog.Schema, db exec.Database) (repaired bool) {
	for changed := true; changed; {
		changed = false
		for _, t := range s.Tables {
			if t.IsView() {
				continue
			}
			rows := db[t.Name]
			kept := rows[:0]
			for _, row := range rows {
				ok := true
				for _, fk := range t.ForeignKeys {
					if fkHolds(db, fk, row) {
						continue
					}
					changed, repaired = true, true
					nullable := true
					for _, c := range fk.Columns {
						nullable = nullable && !t.Columns[c].NotNull
					}
					if !nullable {
						ok = false
						break
					}
					row = append([]exec.Value(nil), row...)
					for _, c := range fk.Columns {
						row[c] = exec.Null
					}
				}
				if ok {
					kept = append(kept, row)
				}
			}
			db[t.Name] = kept
		}
	}
	return repaired
}

// keyEqual is sameValue under column c's collation, as the engine checks
// a key: SQLite's NOCASE folds ASCII case and RTRIM ignores trailing
// spaces; a nondeterministic PostgreSQL collation (ICU, not modelled)
// is read as at least case- and trailing-space-insensitive, so that a
// generated database holds no two keys such a collation may equate
// (accent-insensitive collations are beyond this).
func keyEqual(c *catalog.Column, a, b exec.Value) bool {
	if sameValue(a, b) {
		return true
	}
	if !c.LooseCollation() || a.K != exec.KText || b.K != exec.KText {
		return false
	}
	x, y := strings.TrimRight(a.S, " "), strings.TrimRight(b.S, " ")
	switch strings.ToLower(strings.Trim(c.Collation, `"`)) {
	case "rtrim":
		return x == y
	case "nocase":
		return asciiFold(a.S) == asciiFold(b.S)
	}
	return strings.EqualFold(x, y)
}

func asciiFold(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
