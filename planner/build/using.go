package build

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// PostgreSQL's JOIN … USING (k) and NATURAL JOIN merge each k of the two
// inputs into one output column, listed first:
//
//	SELECT * FROM l JOIN r USING (k)
//	  ⇒ k, l's other columns, r's other columns
//
// The merged k is l.k for an inner or LEFT join, r.k for a RIGHT join and
// COALESCE(l.k, r.k) for a FULL join; l.k and r.k stay reachable only
// qualified, and l.* and r.* still list all of their table's columns.
// The scope models this with one more column per k, unqualified and put
// first, and both inputs' k hidden (visible only when qualified).

// usingPair is one merged column: the indexes of its two sides in the
// join's left and right scope columns.
type usingPair struct {
	name   string
	li, ri int
}

// pgUsingPairs resolves the USING list (or, for NATURAL, the names the
// two sides share, in the left side's order) against the columns an
// unqualified name reaches on each side, as PostgreSQL does.
func (b *builder) pgUsingPairs(names []string, natural bool, lcols, rcols []scopeCol) ([]usingPair, error) {
	if natural {
		names = nil
		for _, l := range lcols {
			if l.hidden || containsName(b, names, l.name) {
				continue
			}
			if visibleCol(b, rcols, l.name) >= 0 {
				names = append(names, l.name)
			}
		}
	}
	var pairs []usingPair
	for i, name := range names {
		if containsName(b, names[:i], name) {
			return nil, b.errf(-1, "column name %q appears more than once in USING clause", name)
		}
		li, ri := visibleCol(b, lcols, name), visibleCol(b, rcols, name)
		switch {
		case li == -2:
			return nil, b.errf(-1, "common column name %q appears more than once in left table", name)
		case ri == -2:
			return nil, b.errf(-1, "common column name %q appears more than once in right table", name)
		case li < 0:
			return nil, b.errf(-1, "column %q specified in USING clause does not exist in left table", name)
		case ri < 0:
			return nil, b.errf(-1, "column %q specified in USING clause does not exist in right table", name)
		}
		if !b.sameMergedValue(lcols[li].id, rcols[ri].id) {
			return nil, b.unsupported(-1, "USING columns whose declared types differ")
		}
		pairs = append(pairs, usingPair{name: name, li: li, ri: ri})
	}
	return pairs, nil
}

// sameMergedValue says the merged column of USING columns l and r
// holds, on each row, the value of the side mergeUsing reads, as it
// prints. PostgreSQL converts both sides to their common type and, in an
// inner join, reads the side that needs no conversion: across declared
// types that may change the text (timestamp to timestamptz, text to
// char, float4 to float8, numeric(10,2)'s 1.50 against numeric's 1.5) or
// pick the other side's spelling, so only these pairs are modelled: one
// declared type; integers of any width (bool, date, uuid and bytea have
// one); text, varchar or char(n) against one another but never char
// against the others, under deterministic collations.
func (b *builder) sameMergedValue(l, r plan.ColumnID) bool {
	dl, dr := b.meta.Domain(l), b.meta.Domain(r)
	switch {
	case dl.Type != dr.Type || dl.Mixed || dr.Mixed:
		return false
	case dl.Base != "" && dl.Base == dr.Base && dl.Mod == dr.Mod && strings.EqualFold(dl.Collation, dr.Collation):
		return true
	case dl.Nondeterministic || dr.Nondeterministic:
		return false
	case dl.Type == catalog.Int || dl.Type == catalog.Bool || dl.Type == catalog.Date || dl.Type == catalog.UUID || dl.Type == catalog.Bytes:
		// One type each (bar the integers' widths, which print alike).
		return true
	case dl.Type == catalog.Text:
		return (dl.Base == "char") == (dr.Base == "char") && strings.EqualFold(dl.Collation, dr.Collation)
	}
	return false
}

// mergeUsing makes the scope of a USING or NATURAL join whose inputs'
// scope columns are cols (the left's nl first): the merged columns
// first, then cols with both sides of each pair hidden. For a FULL join
// the merged columns are computed over node by a Project.
func (b *builder) mergeUsing(node *plan.Node, kind plan.JoinKind, cols []scopeCol, nl int, pairs []usingPair) (*plan.Node, []scopeCol) {
	out := make([]scopeCol, 0, len(pairs)+len(cols))
	var proj *plan.Node
	for _, p := range pairs {
		l, r := cols[p.li], cols[nl+p.ri]
		m := scopeCol{name: p.name, id: l.id, typ: l.typ}
		switch kind {
		case plan.RightJoin:
			m.id = r.id
		case plan.FullJoin:
			if proj == nil {
				proj = &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{node}}
				for _, id := range node.OutCols() {
					proj.Proj = append(proj.Proj, plan.ProjItem{ID: id, Expr: plan.NewCol(id, b.typeOf(id))})
				}
			}
			m.id = b.newColumn(p.name, l.typ)
			coalesce := &plan.Expr{Kind: plan.Func, Name: "coalesce", Typ: l.typ, Pos: -1,
				Args: []*plan.Expr{plan.NewCol(l.id, l.typ), plan.NewCol(r.id, r.typ)}}
			proj.Proj = append(proj.Proj, plan.ProjItem{ID: m.id, Expr: coalesce})
		}
		out = append(out, m)
	}
	out = append(out, cols...)
	for _, p := range pairs {
		out[len(pairs)+p.li].hidden = true
		out[len(pairs)+nl+p.ri].hidden = true
	}
	if proj != nil {
		return proj, out
	}
	return node, out
}

// visibleCol is the index of the one column of cols an unqualified name
// reaches, -1 for none and -2 for more than one.
func visibleCol(b *builder, cols []scopeCol, name string) int {
	found := -1
	for i, c := range cols {
		if c.hidden || !b.nameEq(c.name, name) {
			continue
		}
		if found >= 0 {
			return -2
		}
		found = i
	}
	return found
}

func containsName(b *builder, names []string, name string) bool {
	for _, n := range names {
		if b.nameEq(n, name) {
			return true
		}
	}
	return false
}

// aliasJoin names a join's columns after its alias, (l JOIN r …) AS j
// [(c1, …)]: j's columns are those * lists, renamed in order by the
// column aliases; the columns USING merged away are no longer reachable.
func (b *builder) aliasJoin(alias *pg.Alias, cols []scopeCol) ([]scopeCol, error) {
	out := make([]scopeCol, 0, len(cols))
	for _, c := range cols {
		if c.hidden {
			continue
		}
		c.qual = alias.Aliasname
		if i := len(out); i < len(alias.Colnames) {
			c.name = alias.Colnames[i].GetString_().GetSval()
		}
		out = append(out, c)
	}
	if len(alias.Colnames) > len(out) {
		return nil, b.errf(-1, "table %q has %d columns available but %d columns specified", alias.Aliasname, len(out), len(alias.Colnames))
	}
	return out, nil
}
