package build

import (
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// PostgreSQL types a set operation's column as its first branch's type
// when the branches' string types differ: text, varchar and bpchar cast
// implicitly both ways, so the first non-unknown one wins (the manual's
// "UNION, CASE and related constructs"). Mixing char(n) with another
// string type thus makes the result depend on the branches' order: 'abc '
// from a char(4) column INTERSECT ALL 'abc' from a text column returns
// the padded 'abc ' (compared blank-insensitively), the other way round
// 'abc' (compared exactly), and an equal number of rows is not even
// guaranteed. The plan does not model that coercion, so such a set
// operation is refused rather than judged by rules that treat its
// branches as interchangeable.

// stringClass is what a set operation's column is, for that check.
type stringClass uint8

const (
	classLiteral stringClass = iota // an untyped string literal: takes the other branch's type
	classBPChar                     // char(n)
	classOther                      // a string type that is not char(n)
	classUnknown                    // may be either
)

// checkSetOpStrings refuses a set operation whose branches' string
// columns may differ in being char(n).
func (b *builder) checkSetOpStrings(l, r *relation) error {
	if b.schema.Dialect == catalog.SQLite {
		return b.checkSetOpCollations(l, r)
	}
	if b.schema.Dialect != catalog.Postgres {
		return nil
	}
	for i := range l.cols {
		if b.typeOf(l.cols[i]) != catalog.Text || b.typeOf(r.cols[i]) != catalog.Text {
			continue
		}
		lc, rc := b.stringClassOf(l.node, l.cols[i]), b.stringClassOf(r.node, r.cols[i])
		if lc == classLiteral || rc == classLiteral || lc == rc && lc != classUnknown {
			continue
		}
		return b.unsupported(-1, "a set operation mixing char(n) with another string type (column "+
			l.names[i]+"), whose result type PostgreSQL takes from the first branch,")
	}
	return nil
}

// stringClassOf classifies the column id of a branch rooted at n by the
// expression that defines it, found through the nodes that pass columns
// on (a table with children is a UNION ALL of its own rows and theirs).
func (b *builder) stringClassOf(n *plan.Node, id plan.ColumnID) stringClass {
	e := definingExpr(n, id, 0)
	if e == nil {
		return classUnknown
	}
	if textLiteral(e) {
		return classLiteral
	}
	switch t := b.exactType(e); {
	case t == "bpchar":
		return classBPChar
	case t != "":
		return classOther
	}
	if !b.mayHold(e, "bpchar") {
		return classOther // no char(n) column or cast anywhere in it
	}
	return classUnknown
}

// definingExpr finds the expression that defines column id below n: a
// projection's, or a reference to the table column it is; nil where it
// cannot tell.
func definingExpr(n *plan.Node, id plan.ColumnID, depth int) *plan.Expr {
	if n == nil || depth > 64 {
		return nil
	}
	switch n.Op {
	case plan.OpScan:
		for _, c := range n.Cols {
			if c == id {
				return plan.NewCol(id, catalog.Text)
			}
		}
	case plan.OpProject:
		for _, p := range n.Proj {
			if p.ID != id {
				continue
			}
			if p.Expr.Kind == plan.ColRef && len(n.Inputs) == 1 {
				if d := definingExpr(n.Inputs[0], p.Expr.Col, depth+1); d != nil {
					return d
				}
			}
			return p.Expr
		}
	case plan.OpSetOp:
		// The first branch that is not an untyped literal gives the type.
		// Chains of set operations nest to the left, thousands deep: the
		// leftmost branch is reached without recursion.
		if leaf, leafID, ok := leftmostBranch(n, id); ok {
			if d := definingExpr(leaf, leafID, depth+1); d != nil && !textLiteral(d) {
				return d
			}
		}
		for i, c := range n.Cols {
			if c != id || len(n.SetCols) != len(n.Inputs) {
				continue
			}
			var lit *plan.Expr
			for k, in := range n.Inputs {
				d := definingExpr(in, n.SetCols[k][i], depth+1)
				if d == nil || !textLiteral(d) {
					return d
				}
				lit = d
			}
			return lit
		}
	case plan.OpFilter, plan.OpSort, plan.OpLimit, plan.OpDistinct, plan.OpJoin:
		for _, in := range n.Inputs {
			if d := definingExpr(in, id, depth+1); d != nil {
				return d
			}
		}
	}
	return nil
}

// SQLite compares a compound SELECT's column under the collation of its
// leftmost branch that has one (a column's declared collation, BINARY by
// default; an expression has none): `name UNION site` with name NOCASE
// and site BINARY merges 'A' and 'a', `site UNION name` keeps both. The
// plan does not model that, so branches whose columns' collations differ
// are refused.
func (b *builder) checkSetOpCollations(l, r *relation) error {
	for i := range l.cols {
		lc, lok := b.sqliteCollation(l.node, l.cols[i])
		rc, rok := b.sqliteCollation(r.node, r.cols[i])
		switch {
		case lok && rok && lc != rc && lc != "" && rc != "":
		case lok != rok && (lc != "" && lc != "binary" || rc != "" && rc != "binary"):
		default:
			continue
		}
		return b.unsupported(-1, "a compound SELECT whose branches' columns have different collations (column "+
			l.names[i]+"), which SQLite takes from the leftmost branch,")
	}
	return nil
}

// sqliteCollation is the collation SQLite gives column id of a branch
// rooted at n: a table column's declared one ("binary" by default), ""
// for an expression, which has none, and for a compound's column its
// leftmost branch's that has one; ok is false where it cannot tell.
func (b *builder) sqliteCollation(n *plan.Node, id plan.ColumnID) (coll string, ok bool) {
	coll, ok, _ = b.sqliteColl(n, id, 0)
	return coll, ok
}

// sqliteColl is sqliteCollation below n; found says whether n's subtree
// defines id at all.
func (b *builder) sqliteColl(n *plan.Node, id plan.ColumnID, depth int) (coll string, ok, found bool) {
	if n == nil || depth > 64 {
		return "", false, false
	}
	switch n.Op {
	case plan.OpScan:
		for _, c := range n.Cols {
			if c == id {
				coll, ok = b.tableCollation(id)
				return coll, ok, true
			}
		}
		return "", false, false
	case plan.OpProject:
		for _, p := range n.Proj {
			if p.ID != id {
				continue
			}
			e := p.Expr
			for e.Kind == plan.Cast && len(e.Args) == 1 {
				e = e.Args[0] // a CAST keeps its operand's collation
			}
			if e.Kind != plan.ColRef {
				return "", true, true
			}
			if len(n.Inputs) == 1 {
				if c, ok, found := b.sqliteColl(n.Inputs[0], e.Col, depth+1); found {
					return c, ok, true
				}
			}
			coll, ok = b.tableCollation(e.Col)
			return coll, ok, true
		}
		return "", false, false
	case plan.OpSetOp:
		if leaf, leafID, ok := leftmostBranch(n, id); ok {
			if c, ok, _ := b.sqliteColl(leaf, leafID, depth+1); ok && c != "" {
				return c, true, true
			}
		}
		for i, c := range n.Cols {
			if c != id || len(n.SetCols) != len(n.Inputs) {
				continue
			}
			for k, in := range n.Inputs {
				c, ok, _ := b.sqliteColl(in, n.SetCols[k][i], depth+1)
				if !ok || c != "" {
					return c, ok, true
				}
			}
			return "", true, true
		}
		return "", false, false
	case plan.OpFilter, plan.OpSort, plan.OpLimit, plan.OpDistinct, plan.OpJoin:
		for _, in := range n.Inputs {
			if c, ok, found := b.sqliteColl(in, id, depth+1); found {
				return c, ok, true
			}
		}
	}
	return "", false, false
}

// tableCollation is the declared collation of the table column id is
// ("binary" when none is declared); ok is false for other columns.
func (b *builder) tableCollation(id plan.ColumnID) (string, bool) {
	if b.meta == nil || int(id) < 0 || int(id) >= len(b.meta.Columns) {
		return "", false
	}
	m := b.meta.Col(id)
	if m.Instance < 0 || m.Instance >= len(b.meta.Instances) {
		return "", false
	}
	t := b.meta.Instances[m.Instance].Table
	if t == nil || m.Ordinal < 0 || m.Ordinal >= len(t.Columns) {
		return "", false
	}
	if c := strings.ToLower(t.Columns[m.Ordinal].Collation); c != "" {
		return c, true
	}
	return "binary", true
}

// leftmostBranch follows column id of set operation n down the chain of
// its first inputs to the leftmost branch that is no set operation.
func leftmostBranch(n *plan.Node, id plan.ColumnID) (*plan.Node, plan.ColumnID, bool) {
	for n.Op == plan.OpSetOp {
		i := -1
		for k, c := range n.Cols {
			if c == id {
				i = k
			}
		}
		if i < 0 || len(n.SetCols) == 0 || len(n.Inputs) == 0 || i >= len(n.SetCols[0]) {
			return nil, 0, false
		}
		n, id = n.Inputs[0], n.SetCols[0][i]
	}
	return n, id, true
}

// typeUntypedNull gives a branch's untyped NULL literal column the set
// operation's resolved type t, as PostgreSQL does: an unknown-type
// constant in a leaf SELECT's target list is coerced to the type the
// other branches resolve (SELECT 1 UNION ALL SELECT NULL is of type
// integer, and its NULL is NULL::integer). The branch n must project id
// directly; anything else is left as it is.
func (b *builder) typeUntypedNull(n *plan.Node, id plan.ColumnID, t catalog.Type) {
	if b.schema.Dialect != catalog.Postgres || t == catalog.Null || t == catalog.Unknown || n.Op != plan.OpProject {
		return
	}
	for k, it := range n.Proj {
		if it.ID != id {
			continue
		}
		if it.Expr.Kind != plan.Const || !it.Expr.Null || it.Expr.Typ != catalog.Null {
			return
		}
		e := plan.NewNull(t)
		e.Pos = it.Expr.Pos
		n.Proj[k].Expr = e
		b.meta.Col(id).Type = t
		return
	}
}
