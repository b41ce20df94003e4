package exec

import "github.com/pgequiv/pgequiv/planner/plan"

// affMixed marks a compound column whose arms' affinities differ.
const affMixed affinity = 0xff

// derivedAffinity is the affinity of a column no table scan makes, as
// SQLite gives a subquery's result column (issue 33, item 10): the
// affinity of the expression that defines it (a column's, a CAST's, a
// scalar subquery's; none for anything else), and for a column of a
// compound (UNION, INTERSECT, EXCEPT, also through a CTE) its arms'
// affinity where they all agree. SELECT year FROM t UNION SELECT year
// FROM u, both INTEGER, compares with '2014' as an INTEGER column does.
// Where the arms differ, SQLite versions disagree (3.40 takes the
// leftmost arm's, then applies each arm's own where it pushes a WHERE
// into the arms; newer versions use none): affMixed, which liteCmp
// reads.
func (x *executor) derivedAffinity(id plan.ColumnID) affinity {
	if x.liteAff == nil {
		x.liteAff = x.deriveAffinities()
	}
	return x.liteAff[id]
}

// deriveAffinities computes derivedAffinity for every computed column of
// the plan, its subqueries included (plan.SQLiteColumnAffinities).
func (x *executor) deriveAffinities() map[plan.ColumnID]affinity {
	out := map[plan.ColumnID]affinity{}
	for id, a := range plan.SQLiteColumnAffinities(x.root, x.meta) {
		switch a {
		case plan.AffNumeric:
			out[id] = affNumeric
		case plan.AffText:
			out[id] = affText
		case plan.AffMixed:
			out[id] = affMixed
		}
	}
	return out
}

// liteCmp applies SQLite's comparison affinities (aa, ab) to a
// comparison's operands. An operand of affMixed affinity may take any
// (none, numeric, text) as versions and plans choose: where the choice
// changes the converted operands, the result is nondeterministic.
func (x *executor) liteCmp(aa, ab affinity, va, vb Value) (Value, Value) {
	if aa != affMixed && ab != affMixed {
		x.noteTextAffinity(aa, ab, va, vb)
		return liteCmpOperands(aa, ab, va, vb)
	}
	choices := func(a affinity) []affinity {
		if a == affMixed {
			return []affinity{affNone, affNumeric, affText}
		}
		return []affinity{a}
	}
	var ra, rb Value
	first := true
	for _, ca := range choices(aa) {
		for _, cb := range choices(ab) {
			x.noteTextAffinity(ca, cb, va, vb)
			ca2, cb2 := liteCmpOperands(ca, cb, va, vb)
			if first {
				ra, rb, first = ca2, cb2, false
				continue
			}
			if !sameValue(ra, ca2) || !sameValue(rb, cb2) {
				x.nondet = true // SQLite versions decide apart
			}
		}
	}
	return ra, rb
}

// sameValue reports whether a and b are one value of one storage class.
func sameValue(a, b Value) bool { return a.K == b.K && a.String() == b.String() }
