package exec

import (
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Collations. A text value read from a table column carries the column's
// collation in Value.Scale (unused by text otherwise), when the plan
// reads a column with a collation other than the default (see
// initCollations; other plans pay nothing):
//
//   - SQLite: NOCASE folds ASCII A-Z, RTRIM ignores trailing spaces. A
//     comparison uses the collation of its column operand, the left one
//     first, and BINARY when neither is a column: a tag travels with the
//     value through projections, subquery columns and CAST, as a column's
//     collation does, and is dropped by every other expression
//     (functions, ||, CASE, COALESCE, min/max). Normalization may swap a
//     comparison's operands, so a comparison of two columns of different
//     collations, or of an expression IN a list holding a collated
//     column, "cannot execute" rather than guess which side was left.
//     GROUP BY, DISTINCT, set operations and window partitions group
//     under the collation; when a group holds spellings that differ,
//     which one SQLite returns is not modelled ("cannot execute"), and so
//     for min/max ties between different spellings.
//   - PostgreSQL: a nondeterministic collation's semantics (ICU) are not
//     modelled: comparing, grouping or sorting such a value "cannot
//     execute". A deterministic collation other than C/POSIX keeps = as
//     byte equality but orders otherwise: ordering two different such
//     values "cannot execute".
const (
	collNone     int32 = iota // not a column's value (an expression's)
	collBinary                // SQLite BINARY, a column's
	collNocase                // SQLite NOCASE
	collRtrim                 // SQLite RTRIM
	collPGNondet              // PostgreSQL nondeterministic (not modelled)
	collPGOrder               // PostgreSQL deterministic, order not modelled
)

// columnCollation is the tag of a table column's values under the
// executor's dialect, and whether the executor can model it.
func columnCollation(c *catalog.Column, lite bool) (int32, bool) {
	name := strings.ToLower(strings.Trim(strings.TrimSpace(c.Collation), `"`))
	if lite {
		switch name {
		case "", "binary":
			if c.Nondeterministic {
				return 0, false
			}
			return collBinary, true
		case "nocase":
			return collNocase, true
		case "rtrim":
			return collRtrim, true
		}
		return 0, false // SQLite has no other built-in collation
	}
	if c.Nondeterministic {
		return collPGNondet, true
	}
	switch name {
	case "", "default", "c", "posix", "ucs_basic", "pg_c_utf8":
		return collNone, true
	}
	return collPGOrder, true
}

// initCollations tags the table columns whose collation matters, and
// sets x.coll when one does.
func (x *executor) initCollations() error {
	if x.meta == nil {
		return nil
	}
	for i, inst := range x.meta.Instances {
		if inst.Table == nil {
			continue
		}
		for j := range inst.Table.Columns {
			c := &inst.Table.Columns[j]
			if c.Collation == "" && !c.Nondeterministic {
				continue
			}
			if _, ok := columnCollation(c, x.lite); !ok {
				return cannot("collation %q of column %s.%s", c.Collation, inst.Table.Name, c.Name)
			}
			x.coll = true
			_ = i
		}
	}
	return nil
}

// tagRows returns rows with each text value of table t tagged with its
// column's collation (copies; the database's rows stay as they are).
func (x *executor) tagRows(t *catalog.Table, rows [][]Value) [][]Value {
	tags := make([]int32, len(t.Columns))
	any := false
	for j := range t.Columns {
		tags[j], _ = columnCollation(&t.Columns[j], x.lite)
		any = any || tags[j] != collNone
	}
	if !any {
		return rows
	}
	out := make([][]Value, len(rows))
	for i, row := range rows {
		r := x.newRow(len(row))
		copy(r, row)
		for j := range r {
			if j < len(tags) && r[j].K == KText {
				r[j].Scale = tags[j]
			}
		}
		out[i] = r
	}
	return out
}

// exprColl is the collation of v, ex's text result: none in SQLite (an
// expression is no column); in PostgreSQL the strongest of the columns
// ex reads, as PostgreSQL derives an expression's collation from its
// inputs'.
func (x *executor) exprColl(ex *plan.Expr, v Value) Value {
	if v.K != KText {
		return v
	}
	v.Scale = collNone
	if x.lite {
		return v
	}
	plan.WalkDeep(ex, func(c *plan.Expr) {
		if c.Kind != plan.ColRef || v.Scale == collPGNondet {
			return
		}
		d := x.meta.Domain(c.Col)
		if d.Nondeterministic {
			v.Scale = collPGNondet
		} else if tag, _ := columnCollation(&catalog.Column{Collation: d.Collation}, false); tag == collPGOrder {
			v.Scale = collPGOrder
		}
	})
	return v
}

// untag drops a text value's collation: an expression's result is no
// column's.
func untag(v Value) Value {
	if v.K == KText {
		v.Scale = collNone
	}
	return v
}

// collOf picks the collation of a comparison of a with b (see above).
func collOf(a, b Value) (int32, error) {
	ta, tb := a.Scale, b.Scale
	if a.K != KText {
		ta = collNone
	}
	if b.K != KText {
		tb = collNone
	}
	if ta == collPGNondet || tb == collPGNondet {
		return 0, cannot("comparison under a nondeterministic collation")
	}
	switch {
	case ta == collNone:
		return tb, nil
	case tb == collNone || ta == tb:
		return ta, nil
	}
	return 0, cannot("comparison of columns of different collations (SQLite uses the left operand's, which normalization may have swapped)")
}

// collKey is s as collation c compares it.
func collKey(s string, c int32) string {
	switch c {
	case collNocase:
		return asciiLower(s)
	case collRtrim:
		return strings.TrimRight(s, " ")
	}
	return s
}

// compareColl orders two text values under their collation; ok is false
// when neither carries one that changes the byte order.
func compareColl(a, b Value) (int, bool, error) {
	if a.K != KText || b.K != KText || (a.Scale == collNone && b.Scale == collNone) {
		return 0, false, nil
	}
	c, err := collOf(a, b)
	if err != nil {
		return 0, true, err
	}
	switch c {
	case collNocase, collRtrim:
		return strings.Compare(collKey(a.S, c), collKey(b.S, c)), true, nil
	case collPGOrder:
		if a.S != b.S {
			return 0, true, cannot("ordering under a collation other than C")
		}
		return 0, true, nil
	}
	return 0, false, nil
}

// looseRowKey is rowKey of vals, refusing what the collations of their
// values leave open: a PostgreSQL nondeterministic value, or a group
// (reps: key to spelling) that would hold two spellings.
func looseRowKey(vals []Value, reps map[string]string) (string, error) {
	k := rowKey(vals)
	loose := false
	for _, v := range vals {
		if v.K != KText {
			continue
		}
		switch v.Scale {
		case collPGNondet:
			return "", cannot("grouping under a nondeterministic collation")
		case collNocase, collRtrim:
			loose = true
		}
	}
	if !loose {
		return k, nil
	}
	var raw strings.Builder
	for _, v := range vals {
		if v.K == KText {
			raw.WriteString(v.S)
		}
		raw.WriteByte(0)
	}
	if r, ok := reps[k]; ok && r != raw.String() {
		return "", cannot("a group of values equal only under their collation: which spelling SQLite returns is not modelled")
	}
	reps[k] = raw.String()
	return k, nil
}

// inListColl refuses a IN (...) where the items' collations decide the
// answer otherwise than the = each item stands for: SQLite compares an
// IN list under the left operand's collation only.
func (x *executor) inListColl(ex *plan.Expr, e *env) error {
	left, err := x.eval(ex.Args[0], e)
	if err != nil || left.K != KText || left.Scale != collNone {
		return err
	}
	for _, it := range ex.Args[1:] {
		v, err := x.eval(it, e)
		if err != nil {
			return err
		}
		if v.K == KText && v.Scale != collNone && v.Scale != collBinary {
			return cannot("IN list with a collated item and an uncollated left operand")
		}
	}
	return nil
}

// collTie says whether c == 0 compares different spellings under a
// collation: a min or max that ends on such a tie is refused, since
// which one SQLite returns is not modelled.
func collTie(c int, v, best Value) bool {
	return c == 0 && v.K == KText && best.K == KText && v.S != best.S && (v.Scale == collNocase || v.Scale == collRtrim || best.Scale == collNocase || best.Scale == collRtrim)
}

// setOpColl refuses a set operation whose columns mix a SQLite collation
// with another (the compound's column takes its leftmost operand's, which
// the plan no longer tells apart) and, without ALL, groups that would
// hold two spellings.
func setOpColl(l, r [][]Value, all bool, kind plan.SetKind) error {
	var tags []int32
	for _, rows := range [][][]Value{l, r} {
		for _, row := range rows {
			if tags == nil {
				tags = make([]int32, len(row))
				for i := range tags {
					tags[i] = -1
				}
			}
			for i, v := range row {
				if v.K != KText || i >= len(tags) {
					continue
				}
				if v.Scale == collPGNondet {
					return cannot("set operation under a nondeterministic collation")
				}
				switch {
				case tags[i] < 0:
					tags[i] = v.Scale
				case tags[i] != v.Scale && (tags[i] == collNocase || tags[i] == collRtrim || v.Scale == collNocase || v.Scale == collRtrim):
					return cannot("set operation mixing collations")
				}
			}
		}
	}
	if all && kind == plan.Union {
		return nil
	}
	reps := map[string]string{}
	for _, rows := range [][][]Value{l, r} {
		for _, row := range rows {
			if _, err := looseRowKey(row, reps); err != nil {
				return err
			}
		}
	}
	return nil
}
