package build

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// fromItem builds one FROM-clause item and returns the columns it makes
// visible.
func (b *builder) fromItem(n *pg.Node, sc *scope) (*plan.Node, []scopeCol, error) {
	switch v := n.Node.(type) {
	case *pg.Node_RangeVar:
		return b.rangeVar(v.RangeVar, sc)
	case *pg.Node_RangeSubselect:
		rs := v.RangeSubselect
		sub := rs.Subquery.GetSelectStmt()
		outer := sc.parent
		if rs.Lateral {
			outer = sc
			b.laterals++
		}
		rel, err := b.buildSelect(sub, outer, sc.ctes)
		if err != nil {
			return nil, nil, err
		}
		alias := ""
		var colAliases []*pg.Node
		if rs.Alias != nil {
			alias, colAliases = rs.Alias.Aliasname, rs.Alias.Colnames
		}
		if err := b.sqliteAliasList(colAliases); err != nil {
			return nil, nil, err
		}
		cols, err := b.relationCols(rel, alias, colAliases)
		if err != nil {
			return nil, nil, err
		}
		return rel.node, cols, nil
	case *pg.Node_JoinExpr:
		return b.joinExpr(v.JoinExpr, sc)
	case *pg.Node_RangeFunction:
		return nil, nil, b.unsupported(-1, "a function in FROM")
	}
	return nil, nil, b.unsupported(-1, "FROM item "+nodeKindName(n))
}

func (b *builder) relationCols(rel *relation, alias string, colAliases []*pg.Node) ([]scopeCol, error) {
	if len(colAliases) > len(rel.cols) {
		return nil, b.errf(-1, "table %q has %d columns available but %d columns specified", alias, len(rel.cols), len(colAliases))
	}
	cols := make([]scopeCol, len(rel.cols))
	for i, c := range rel.cols {
		name := rel.names[i]
		if i < len(colAliases) {
			name = colAliases[i].GetString_().GetSval()
		}
		cols[i] = scopeCol{qual: alias, name: name, id: c, typ: b.typeOf(c)}
	}
	return cols, nil
}

const maxExpansionDepth = 16

func (b *builder) rangeVar(rv *pg.RangeVar, sc *scope) (*plan.Node, []scopeCol, error) {
	alias := rv.Relname
	var colAliases []*pg.Node
	if rv.Alias != nil {
		alias, colAliases = rv.Alias.Aliasname, rv.Alias.Colnames
	}
	if err := b.sqliteAliasList(colAliases); err != nil {
		return nil, nil, err
	}
	if b.schema.Dialect == catalog.SQLite && !rv.Inh {
		// FROM ONLY t: SQLite reads ONLY as the table's name.
		return nil, nil, b.sqliteErr(rv.Location, "no such table: ONLY")
	}
	if rv.Schemaname == "" {
		if c := sc.lookupCTE(b, rv.Relname); c != nil {
			if b.depth > maxExpansionDepth {
				return nil, nil, b.errf(rv.Location, "CTE %q expands too deeply (recursive reference?)", rv.Relname)
			}
			b.depth++
			sel := c.def.Ctequery.GetSelectStmt()
			if sel == nil {
				return nil, nil, b.sideEffects(rv.Location, "a data-modifying WITH query")
			}
			// Inline: every reference gets a fresh copy with its own columns.
			rel, err := b.buildSelect(sel, c.visible.parent, c.visible.ctes)
			b.depth--
			if err != nil {
				return nil, nil, err
			}
			if colAliases == nil {
				colAliases = c.def.Aliascolnames
			}
			cols, err := b.relationCols(rel, alias, colAliases)
			return rel.node, cols, err
		}
	}
	t := b.schema.Table(rv.Relname)
	if t == nil {
		return nil, nil, b.nameErrf(rv.Location, "relation %q does not exist", rv.Relname)
	}
	if t.IsView() {
		if b.depth > maxExpansionDepth {
			return nil, nil, b.errf(rv.Location, "view %q expands too deeply", t.Name)
		}
		tree, err := pg.Parse(t.ViewSQL)
		if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
			return nil, nil, b.errf(rv.Location, "view %q: cannot parse its definition", t.Name)
		}
		// The view's text is PostgreSQL and its positions are its own.
		sub := &builder{schema: b.schema, src: t.ViewSQL, text: t.ViewSQL, meta: b.meta, depth: b.depth + 1, lim: b.lim, ext: b.ext}
		rel, err := sub.buildSelect(tree.Stmts[0].Stmt.GetSelectStmt(), nil, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("plan: in view %s: %w", t.Name, err)
		}
		if colAliases == nil {
			for _, n := range t.ViewColumns {
				colAliases = append(colAliases, pg.MakeStrNode(n))
			}
		}
		cols, err := b.relationCols(rel, alias, colAliases)
		return rel.node, cols, err
	}
	// rv.Inh is false for FROM ONLY t.
	n, ids, err := b.tableScan(t, alias, !rv.Inh, 0, rv.Location)
	if err != nil {
		return nil, nil, err
	}
	var cols []scopeCol
	for i, c := range t.Columns {
		name := c.Name
		if i < len(colAliases) {
			name = colAliases[i].GetString_().GetSval()
		}
		cols = append(cols, scopeCol{qual: alias, name: name, id: ids[i], typ: c.Type})
	}
	return n, cols, nil
}

func (b *builder) joinExpr(j *pg.JoinExpr, sc *scope) (*plan.Node, []scopeCol, error) {
	ln, lcols, err := b.fromItem(j.Larg, sc)
	if err != nil {
		return nil, nil, err
	}
	// A LATERAL item on the right sees the left side's columns.
	rsc := &scope{cols: append(append([]scopeCol(nil), sc.cols...), lcols...), parent: sc.parent, ctes: sc.ctes}
	laterals := b.laterals
	rn, rcols, err := b.fromItem(j.Rarg, rsc)
	if err != nil {
		return nil, nil, err
	}
	kind, ok := joinKinds[j.Jointype]
	if !ok {
		return nil, nil, b.unsupported(-1, "join type "+j.Jointype.String())
	}
	n := &plan.Node{Op: plan.OpJoin, Join: kind, Inputs: []*plan.Node{ln, rn}}
	cols := append(append([]scopeCol(nil), lcols...), rcols...)
	// The condition sees both sides and the enclosing query's columns.
	jsc := &scope{cols: cols, parent: sc.parent, ctes: sc.ctes}
	using, pairs, err := b.joinUsing(j, n, lcols, rcols, cols)
	if err != nil {
		return nil, nil, err
	}
	if j.Quals != nil && b.onQuals != nil && n.Join == plan.InnerJoin && len(using) == 0 {
		*b.onQuals = append(*b.onQuals, j.Quals) // read over the whole FROM clause
	} else if j.Quals != nil {
		q, err := b.expr(j.Quals, jsc, nil)
		if err != nil {
			return nil, nil, err
		}
		if q.HasAgg() {
			return nil, nil, b.errf(-1, "aggregate functions are not allowed in JOIN conditions")
		}
		n.Preds = append(n.Preds, q)
	}
	if err := b.checkFullJoin(n, lcols, rcols, -1); err != nil {
		return nil, nil, err
	}
	node := n
	if b.laterals > laterals {
		var rcols []scopeCol
		if node, rcols, err = b.lateralItem(n, cols[len(lcols):]); err != nil {
			return nil, nil, err
		}
		cols = append(cols[:len(lcols):len(lcols)], rcols...)
	}
	if len(pairs) > 0 {
		node, cols = b.mergeUsing(node, n.Join, cols, len(lcols), pairs)
		if a := j.JoinUsingAlias; a != nil {
			// USING (k) AS x: x.k and x.* name the merged columns.
			for _, m := range cols[:len(pairs)] {
				m.qual, m.hidden = a.Aliasname, true
				cols = append(cols, m)
			}
		}
	}
	if j.Alias != nil && b.schema.Dialect == catalog.Postgres {
		cols, err := b.aliasJoin(j.Alias, cols)
		return node, cols, err
	}
	if j.Alias != nil {
		for i := range cols {
			cols[i].qual = j.Alias.Aliasname
		}
	}
	return node, cols, nil
}

// joinKinds are the join types the planner models.
var joinKinds = map[pg.JoinType]plan.JoinKind{
	pg.JoinType_JOIN_INNER: plan.InnerJoin,
	pg.JoinType_JOIN_LEFT:  plan.LeftJoin,
	pg.JoinType_JOIN_RIGHT: plan.RightJoin,
	pg.JoinType_JOIN_FULL:  plan.FullJoin,
}

// joinUsing reads join j's USING columns or NATURAL join, adding their
// equalities to join n's conditions: on PostgreSQL as the pairs of
// columns to merge (mergeUsing), elsewhere hiding the null-extended
// side's column of each name in cols, the join's scope columns.
func (b *builder) joinUsing(j *pg.JoinExpr, n *plan.Node, lcols, rcols, cols []scopeCol) (using []string, pairs []usingPair, err error) {
	if b.schema.Dialect == catalog.Postgres && (j.IsNatural || len(j.UsingClause) > 0) {
		for _, u := range j.UsingClause {
			using = append(using, u.GetString_().GetSval())
		}
		if pairs, err = b.pgUsingPairs(using, j.IsNatural, lcols, rcols); err != nil {
			return nil, nil, err
		}
		using = using[:0]
		for _, p := range pairs {
			using = append(using, p.name)
			l, r := lcols[p.li], rcols[p.ri]
			n.Preds = append(n.Preds, plan.NewOp(plan.OpEq, catalog.Bool, plan.NewCol(l.id, l.typ), plan.NewCol(r.id, r.typ)))
		}
	} else if j.IsNatural {
		for _, l := range lcols {
			for _, r := range rcols {
				if b.nameEq(l.name, r.name) {
					using = append(using, l.name)
				}
			}
		}
	}
	if b.schema.Dialect != catalog.Postgres {
		for _, u := range j.UsingClause {
			using = append(using, u.GetString_().GetSval())
		}
	}
	if len(using) > 0 && b.schema.Dialect != catalog.Postgres {
		if n.Join == plan.FullJoin {
			return nil, nil, b.unsupported(-1, "FULL JOIN with USING or NATURAL")
		}
		for _, name := range using {
			li, ri := findCol(b, lcols, name), findCol(b, rcols, name)
			if li < 0 || ri < 0 {
				return nil, nil, b.errf(-1, "column %q specified in USING clause does not exist in both tables", name)
			}
			l, r := lcols[li], rcols[ri]
			n.Preds = append(n.Preds, plan.NewOp(plan.OpEq, catalog.Bool, plan.NewCol(l.id, l.typ), plan.NewCol(r.id, r.typ)))
			// The merged column answers to the unqualified name from the side
			// that is never null-extended.
			hide := len(lcols) + ri
			if n.Join == plan.RightJoin {
				hide = li
			}
			cols[hide].hidden = true
		}
	}
	return using, pairs, nil
}

// lateralItem lowers join when its right input references its left
// (see lateral.go) and gives the right input's scope columns the IDs that
// replace them.
func (b *builder) lateralItem(join *plan.Node, rcols []scopeCol) (*plan.Node, []scopeCol, error) {
	ids := make([]plan.ColumnID, len(rcols))
	for i, c := range rcols {
		ids[i] = c.id
	}
	n, ids, err := b.lateralJoin(join, ids)
	if err != nil {
		return nil, nil, err
	}
	out := append([]scopeCol(nil), rcols...)
	for i := range out {
		out[i].id = ids[i]
	}
	return n, out, nil
}

func findCol(b *builder, cols []scopeCol, name string) int {
	for i, c := range cols {
		if b.nameEq(c.name, name) {
			return i
		}
	}
	return -1
}
