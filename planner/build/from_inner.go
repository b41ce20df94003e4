package build

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// SQLite reads the ON condition of an inner join as a WHERE term: it may
// name a table joined further right (FROM a JOIN b ON a.x = c.z JOIN c
// ON ...), and a comma binds as tightly as JOIN (FROM a, b JOIN c ON
// a.x = c.z), where PostgreSQL reports a missing FROM-clause entry. Over
// a FROM clause of inner joins only, an ON condition filters the cross
// product of every item as it filters its own join's, so those
// conditions are read over the whole clause, as one filter above it.
// SQLite refuses the same reach from an outer join's ON ("ON clause
// references tables to its right"), and USING and NATURAL joins merge
// columns by their place; a clause with any of them, or with a LATERAL
// or function item, is built as PostgreSQL reads it.

// retryInnerOn builds stmt again with the inner joins' ON conditions read
// over the whole FROM clause, when b (a SQLite build) failed on a name
// missing from an ON condition's scope. ok is false when it does not
// apply or fails too: the first error stands.
func (b *builder) retryInnerOn(stmt *pg.Node, err error) (*builder, *plan.Plan, bool) {
	if b.schema.Dialect != catalog.SQLite || b.deferInnerOn || !strings.Contains(err.Error(), "missing FROM-clause entry") {
		return nil, nil, false
	}
	// The same text and schema, built afresh: new metadata and budget.
	b2 := &builder{schema: b.schema, src: b.src, text: b.text, posMap: b.posMap, srcToks: b.srcToks, ext: b.ext,
		meta: &plan.Metadata{Dialect: b.schema.Dialect}, lim: &limits{ctx: b.lim.ctx, max: b.lim.max}, deferInnerOn: true}
	root, err2 := b2.buildStmt(stmt)
	if err2 != nil {
		return nil, nil, false
	}
	return b2, root, true
}

// innerJoinsOnly reports whether the FROM items are tables, subqueries
// and inner or cross joins of them, without USING, NATURAL or LATERAL.
func innerJoinsOnly(from []*pg.Node) bool {
	var ok func(n *pg.Node) bool
	ok = func(n *pg.Node) bool {
		switch {
		case n.GetRangeVar() != nil:
			return true
		case n.GetRangeSubselect() != nil:
			return !n.GetRangeSubselect().Lateral
		case n.GetJoinExpr() != nil:
			j := n.GetJoinExpr()
			return j.Jointype == pg.JoinType_JOIN_INNER && !j.IsNatural && len(j.UsingClause) == 0 && ok(j.Larg) && ok(j.Rarg)
		}
		return false
	}
	for _, n := range from {
		if !ok(n) {
			return false
		}
	}
	return true
}

// innerOnFilter places the inner joins' ON conditions, read over the
// whole FROM clause (sc), as a Filter over node.
func (b *builder) innerOnFilter(node *plan.Node, quals []*pg.Node, sc *scope) (*plan.Node, error) {
	f := &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{node}}
	for _, qn := range quals {
		q, err := b.expr(qn, sc, nil)
		if err != nil {
			return nil, err
		}
		if q.HasAgg() {
			return nil, b.errf(-1, "aggregate functions are not allowed in JOIN conditions")
		}
		f.Preds = append(f.Preds, q)
	}
	return f, nil
}
