package build

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// target is one built select-list item.
type target struct {
	expr *plan.Expr
	name string
}

// aggState collects aggregate and window calls while expressions of one
// query level are built.
type aggState struct {
	aggs []*plan.Expr
	wins []*plan.Expr
}

func (b *builder) buildSimpleSelect(sel *pg.SelectStmt, sc *scope) (*relation, error) {
	// FROM
	var node *plan.Node
	for _, item := range sel.FromClause {
		laterals := b.laterals
		rel, cols, err := b.fromItem(item, sc)
		if err != nil {
			return nil, err
		}
		if node == nil {
			node = rel
		} else {
			node = &plan.Node{Op: plan.OpJoin, Join: plan.InnerJoin, Inputs: []*plan.Node{node, rel}}
			if b.laterals > laterals {
				if node, cols, err = b.lateralItem(node, cols); err != nil {
					return nil, err
				}
			}
		}
		sc.cols = append(sc.cols, cols...)
	}
	if node == nil {
		// SELECT without FROM reads one empty row.
		node = &plan.Node{Op: plan.OpValues, Rows: [][]*plan.Expr{{}}}
	}
	// WHERE
	if sel.WhereClause != nil {
		w, err := b.expr(sel.WhereClause, sc, nil)
		if err != nil {
			return nil, err
		}
		if w.HasAgg() {
			return nil, b.errf(-1, "aggregate functions are not allowed in WHERE")
		}
		node = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{node}, Preds: []*plan.Expr{w}}
	}

	// SELECT list, with * expanded.
	st := &aggState{}
	var targets []target
	for _, tn := range sel.TargetList {
		rt := tn.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && isStar(cr) {
			cols, err := b.expandStar(cr, sc)
			if err != nil {
				return nil, err
			}
			for _, c := range cols {
				targets = append(targets, target{expr: plan.NewCol(c.id, c.typ), name: c.name})
			}
			continue
		}
		e, err := b.expr(rt.Val, sc, st)
		if err != nil {
			return nil, err
		}
		name := rt.Name
		if name == "" {
			name = b.defaultName(rt.Val)
		}
		targets = append(targets, target{expr: e, name: name})
	}

	// GROUP BY keys may name output aliases or ordinals.
	groupExprs, groupSets, err := b.groupingClause(sel, func(gn *pg.Node) (*plan.Expr, error) {
		if i, ok := ordinalRef(gn); ok {
			if i < 1 || i > len(targets) {
				return nil, b.errf(-1, "GROUP BY position %d is not in select list", i)
			}
			return targets[i-1].expr, nil
		}
		e, err := b.expr(gn, sc, nil)
		if err != nil {
			// An output alias: allowed when no input column has the name.
			if name, ok := singleName(gn); ok {
				if t := findTarget(b, targets, name); t != nil {
					return t.expr, nil
				}
			}
			return nil, err
		}
		if e.HasAgg() {
			return nil, b.errf(-1, "aggregate functions are not allowed in GROUP BY")
		}
		if err := b.sqliteOuterRef(e, gn, sc, "GROUP BY"); err != nil {
			return nil, err
		}
		return e, nil
	})
	if err != nil {
		return nil, err
	}
	if b.schema.Dialect == catalog.SQLite {
		// SQLite lets HAVING and ORDER BY expressions name output aliases.
		sc.aliases = targets
	}
	var having *plan.Expr
	if sel.HavingClause != nil {
		var err error
		if having, err = b.expr(sel.HavingClause, sc, st); err != nil {
			return nil, err
		}
	}
	// SQLite decides whether a query aggregates from its GROUP BY, its
	// result columns and HAVING: not from ORDER BY.
	aggBeforeOrder := len(groupExprs) > 0 || groupSets != nil || len(st.aggs) > 0
	if b.schema.Dialect == catalog.SQLite && having != nil && !aggBeforeOrder {
		return nil, b.sqliteErr(-1, "HAVING clause on a non-aggregate query")
	}
	nAggs := len(st.aggs)
	// ORDER BY keys: ordinals and output names refer to targets; anything
	// else is an expression over the input.
	type orderItem struct {
		target int // index into targets, or -1
		expr   *plan.Expr
		sb     *pg.SortBy
	}
	var orders []orderItem
	for _, sn := range sel.SortClause {
		sb := sn.GetSortBy()
		if i, ok := ordinalRef(sb.Node); ok {
			if i < 1 || i > len(targets) {
				return nil, b.errf(sb.Location, "ORDER BY position %d is not in select list", i)
			}
			orders = append(orders, orderItem{target: i - 1, sb: sb})
			continue
		}
		if name, ok := singleName(sb.Node); ok {
			if i := findTargetIndex(b, targets, name); i >= 0 {
				orders = append(orders, orderItem{target: i, sb: sb})
				continue
			}
		}
		e, err := b.expr(sb.Node, sc, st)
		if err != nil {
			return nil, err
		}
		if err := b.sqliteOuterRef(e, sb.Node, sc, "ORDER BY"); err != nil {
			return nil, err
		}
		orders = append(orders, orderItem{target: -1, expr: e, sb: sb})
	}

	if b.schema.Dialect == catalog.SQLite && !aggBeforeOrder && len(st.aggs) > nAggs {
		a := st.aggs[nAggs]
		return nil, b.sqliteErr(a.Pos, "misuse of aggregate: %s()", a.Name)
	}

	// Aggregation.
	aggregated := len(groupExprs) > 0 || len(st.aggs) > 0 || having != nil || groupSets != nil
	if aggregated {
		rewriteAll := func(rw func(*plan.Expr) (*plan.Expr, error)) error {
			var err error
			for i := range targets {
				if targets[i].expr, err = rw(targets[i].expr); err != nil {
					return err
				}
			}
			if having != nil {
				if having, err = rw(having); err != nil {
					return err
				}
			}
			for i := range orders {
				if orders[i].expr != nil {
					if orders[i].expr, err = rw(orders[i].expr); err != nil {
						return err
					}
				}
			}
			return nil
		}
		var groupCols []plan.ColumnID
		node, groupCols, err = b.buildAggregate(node, sc, groupExprs, st, rewriteAll)
		if err != nil {
			return nil, err
		}
		if groupSets != nil || hasGroupingCall(node) {
			var repl map[plan.ColumnID]*plan.Expr
			if node, repl, err = b.lowerGroupingSets(node, groupExprs, groupCols, groupSets); err != nil {
				return nil, err
			}
			if err := rewriteAll(func(e *plan.Expr) (*plan.Expr, error) { return replaceInExpr(e, repl), nil }); err != nil {
				return nil, err
			}
		}
		if having != nil {
			node = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{node}, Preds: []*plan.Expr{having}}
		}
	}

	// Window functions compute new columns over the (aggregated) input.
	if len(st.wins) > 0 {
		win := &plan.Node{Op: plan.OpWindow, Inputs: []*plan.Node{node}}
		for _, w := range st.wins {
			id := b.newColumn(w.Name, w.Typ)
			win.Proj = append(win.Proj, plan.ProjItem{ID: id, Expr: w.Copy()})
			ref := plan.NewCol(id, w.Typ)
			replace := func(e *plan.Expr) *plan.Expr {
				return plan.Rewrite(e, func(x *plan.Expr) *plan.Expr {
					if x == w {
						return ref
					}
					return x
				})
			}
			for i := range targets {
				targets[i].expr = replace(targets[i].expr)
			}
			for i := range orders {
				if orders[i].expr != nil {
					orders[i].expr = replace(orders[i].expr)
				}
			}
		}
		node = win
	}

	// Projection.
	proj := &plan.Node{Op: plan.OpProject}
	rel := &relation{}
	for _, t := range targets {
		id := plan.ColumnID(-1)
		if t.expr.Kind == plan.ColRef {
			id = t.expr.Col
		} else {
			id = b.newColumn(t.name, t.expr.Typ)
		}
		proj.Proj = append(proj.Proj, plan.ProjItem{ID: id, Expr: t.expr})
		rel.cols = append(rel.cols, id)
		rel.names = append(rel.names, t.name)
	}

	distinct := len(sel.DistinctClause) > 0
	if distinct && sel.DistinctClause[0] != nil && sel.DistinctClause[0].Node != nil {
		return nil, b.unsupported(-1, "DISTINCT ON")
	}
	var keys []plan.SortKey
	for _, o := range orders {
		var e *plan.Expr
		switch {
		case o.target >= 0 && distinct:
			e = plan.NewCol(rel.cols[o.target], targets[o.target].expr.Typ)
		case o.target >= 0:
			e = targets[o.target].expr.Copy()
		case distinct:
			// With DISTINCT the key must be an output column.
			found := -1
			for i, t := range targets {
				if exprEqual(t.expr, o.expr) {
					found = i
					break
				}
			}
			if found < 0 {
				return nil, b.errf(o.sb.Location, "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
			}
			e = plan.NewCol(rel.cols[found], targets[found].expr.Typ)
		default:
			e = o.expr
		}
		k, err := b.sortKey(o.sb, e)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}

	if distinct {
		proj.Inputs = []*plan.Node{node}
		node = &plan.Node{Op: plan.OpDistinct, Inputs: []*plan.Node{proj}}
		if len(keys) > 0 {
			node = &plan.Node{Op: plan.OpSort, Inputs: []*plan.Node{node}, Keys: keys}
		}
		rel.node = node
		rel.ordered = len(keys) > 0
		return b.applyLimit(sel, rel, sc)
	}
	if len(keys) > 0 {
		node = &plan.Node{Op: plan.OpSort, Inputs: []*plan.Node{node}, Keys: keys}
		rel.ordered = true
	}
	rel.node = node
	if _, err := b.applyLimit(sel, rel, sc); err != nil {
		return nil, err
	}
	proj.Inputs = []*plan.Node{rel.node}
	rel.node = proj
	return rel, nil
}

func findTargetIndex(b *builder, ts []target, name string) int {
	found := -1
	for i, t := range ts {
		if b.nameEq(t.name, name) {
			if found >= 0 && !exprEqual(ts[found].expr, t.expr) {
				return -1 // ambiguous: fall back to input columns
			}
			if found < 0 {
				found = i
			}
		}
	}
	return found
}

func findTarget(b *builder, ts []target, name string) *target {
	if i := findTargetIndex(b, ts, name); i >= 0 {
		return &ts[i]
	}
	return nil
}

// buildAggregate places an Aggregate over node. Grouping expressions that
// are not plain columns are computed by a Project below it. rewrite is
// handed a function that maps an expression over the input to one over
// the aggregate's output.
func (b *builder) buildAggregate(node *plan.Node, sc *scope, groupExprs []*plan.Expr, st *aggState, rewrite func(func(*plan.Expr) (*plan.Expr, error)) error) (*plan.Node, []plan.ColumnID, error) {
	agg := &plan.Node{Op: plan.OpAggregate}
	var pre []plan.ProjItem
	groupRefs := make([]*plan.Expr, len(groupExprs))
	for i, g := range groupExprs {
		if g.Kind == plan.ColRef {
			groupRefs[i] = g
		} else {
			id := b.newColumn(exprName(g), g.Typ)
			pre = append(pre, plan.ProjItem{ID: id, Expr: g})
			groupRefs[i] = plan.NewCol(id, g.Typ)
		}
		dup := false
		for _, k := range agg.GroupBy {
			if k == groupRefs[i].Col {
				dup = true
			}
		}
		if !dup {
			agg.GroupBy = append(agg.GroupBy, groupRefs[i].Col)
		}
	}
	if len(pre) > 0 {
		p := &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{node}}
		for _, c := range node.OutCols() {
			p.Proj = append(p.Proj, plan.ProjItem{ID: c, Expr: plan.NewCol(c, b.typeOf(c))})
		}
		p.Proj = append(p.Proj, pre...)
		node = p
	}
	agg.Inputs = []*plan.Node{node}
	groupSet := plan.MakeColSet(agg.GroupBy...)
	inputCols := node.OutColSet()
	aggRef := map[*plan.Expr]*plan.Expr{}
	for _, a := range st.aggs {
		// Identical aggregate calls share one output column.
		var ref *plan.Expr
		for _, it := range agg.Aggs {
			if exprEqual(it.Expr, a) {
				ref = plan.NewCol(it.ID, a.Typ)
			}
		}
		if ref == nil {
			id := b.newColumn(a.Name, a.Typ)
			agg.Aggs = append(agg.Aggs, plan.ProjItem{ID: id, Expr: a})
			ref = plan.NewCol(id, a.Typ)
		}
		aggRef[a] = ref
	}
	var rwErr error
	rw := func(e *plan.Expr) (*plan.Expr, error) {
		var walk func(x *plan.Expr) *plan.Expr
		walk = func(x *plan.Expr) *plan.Expr {
			if r, ok := aggRef[x]; ok {
				return r.Copy()
			}
			if x.Kind == plan.Agg {
				// A copy of an aggregate, from an output alias (SQLite).
				for _, it := range agg.Aggs {
					if exprEqual(it.Expr, x) {
						return plan.NewCol(it.ID, x.Typ)
					}
				}
			}
			for i, g := range groupExprs {
				if exprEqual(g, x) {
					return groupRefs[i].Copy()
				}
			}
			if x.Kind == plan.ColRef && inputCols.Has(x.Col) && !groupSet.Has(x.Col) {
				// A column neither grouped nor aggregated. PostgreSQL accepts
				// it when the grouped columns contain its table's primary
				// key; SQLite always does and takes it from some row of the
				// group. Both are modelled as any_value over the group.
				if b.schema.Dialect != catalog.SQLite && !b.dependsOnGroup(x.Col, groupSet) {
					rwErr = b.errf(x.Pos, "column %q must appear in the GROUP BY clause or be used in an aggregate function", b.meta.Col(x.Col).Name)
					return x
				}
				a := &plan.Expr{Kind: plan.Agg, Name: "any_value", Typ: x.Typ, Args: []*plan.Expr{x}, Pos: -1}
				for _, it := range agg.Aggs {
					if exprEqual(it.Expr, a) {
						return plan.NewCol(it.ID, x.Typ)
					}
				}
				id := b.newColumn(b.meta.Col(x.Col).Name, x.Typ)
				agg.Aggs = append(agg.Aggs, plan.ProjItem{ID: id, Expr: a})
				return plan.NewCol(id, x.Typ)
			}
			if x.Kind == plan.Subquery {
				// Correlated references inside a subquery see the group's
				// values: grouped columns pass through; others are modelled
				// like bare columns above.
				x.Sub.WalkExprs(func(y *plan.Expr) {
					y.Children(func(s **plan.Expr) { *s = walk(*s) })
				})
				return x
			}
			x.Children(func(s **plan.Expr) { *s = walk(*s) })
			return x
		}
		out := walk(e)
		return out, rwErr
	}
	if err := rewrite(rw); err != nil {
		return nil, nil, err
	}
	groupCols := make([]plan.ColumnID, len(groupRefs))
	for i, r := range groupRefs {
		groupCols[i] = r.Col
	}
	return agg, groupCols, nil
}

// hasGroupingCall reports whether an Aggregate computes GROUPING().
func hasGroupingCall(agg *plan.Node) bool {
	for _, a := range agg.Aggs {
		if a.Expr.Name == "grouping" {
			return true
		}
	}
	return false
}

// dependsOnGroup reports whether col's table instance has a primary key
// entirely among the grouped columns (PostgreSQL's functional dependency
// rule for ungrouped columns).
func (b *builder) dependsOnGroup(col plan.ColumnID, group plan.ColSet) bool {
	m := b.meta.Col(col)
	if m.Instance < 0 {
		return false
	}
	inst := b.meta.Instances[m.Instance]
	if len(inst.Table.PrimaryKey) == 0 {
		return false
	}
	for _, o := range inst.Table.PrimaryKey {
		if !group.Has(inst.Cols[o]) {
			return false
		}
	}
	return true
}

func isStar(cr *pg.ColumnRef) bool {
	return len(cr.Fields) > 0 && cr.Fields[len(cr.Fields)-1].GetAStar() != nil
}

func (b *builder) expandStar(cr *pg.ColumnRef, sc *scope) ([]scopeCol, error) {
	if len(cr.Fields) == 1 {
		var out []scopeCol
		for _, c := range sc.cols {
			if !c.hidden {
				out = append(out, c)
			}
		}
		if len(out) == 0 {
			return nil, b.errf(cr.Location, "SELECT * with no tables specified is not valid")
		}
		return out, nil
	}
	qual := cr.Fields[len(cr.Fields)-2].GetString_().GetSval()
	var out []scopeCol
	for _, c := range sc.cols {
		if b.nameEq(c.qual, qual) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, b.errf(cr.Location, "missing FROM-clause entry for table %q", qual)
	}
	return out, nil
}

// defaultName is the output name PostgreSQL gives an unaliased target.
func (b *builder) defaultName(n *pg.Node) string {
	switch v := n.Node.(type) {
	case *pg.Node_ColumnRef:
		if s := v.ColumnRef.Fields[len(v.ColumnRef.Fields)-1].GetString_(); s != nil {
			return s.Sval
		}
	case *pg.Node_FuncCall:
		return v.FuncCall.Funcname[len(v.FuncCall.Funcname)-1].GetString_().GetSval()
	case *pg.Node_GroupingFunc:
		return "grouping"
	case *pg.Node_TypeCast:
		if _, ok := v.TypeCast.Arg.Node.(*pg.Node_AConst); !ok {
			return b.defaultName(v.TypeCast.Arg)
		}
		return typeNameOf(v.TypeCast.TypeName)
	case *pg.Node_CaseExpr:
		return "case"
	case *pg.Node_SubLink:
		if v.SubLink.SubLinkType == pg.SubLinkType_EXISTS_SUBLINK {
			return "exists"
		}
		if s := v.SubLink.Subselect.GetSelectStmt(); s != nil && len(s.TargetList) == 1 {
			rt := s.TargetList[0].GetResTarget()
			if rt.Name != "" {
				return rt.Name
			}
			return b.defaultName(rt.Val)
		}
	case *pg.Node_CoalesceExpr:
		return "coalesce"
	}
	return "?column?"
}

func exprName(e *plan.Expr) string {
	if e.Kind == plan.Func || e.Kind == plan.Agg {
		return e.Name
	}
	return "?column?"
}

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
		return nil, nil, b.errf(rv.Location, "relation %q does not exist", rv.Relname)
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
	n := &plan.Node{Op: plan.OpJoin, Inputs: []*plan.Node{ln, rn}}
	switch j.Jointype {
	case pg.JoinType_JOIN_INNER:
		n.Join = plan.InnerJoin
	case pg.JoinType_JOIN_LEFT:
		n.Join = plan.LeftJoin
	case pg.JoinType_JOIN_RIGHT:
		n.Join = plan.RightJoin
	case pg.JoinType_JOIN_FULL:
		n.Join = plan.FullJoin
	default:
		return nil, nil, b.unsupported(-1, "join type "+j.Jointype.String())
	}
	cols := append(append([]scopeCol(nil), lcols...), rcols...)
	// The condition sees both sides and the enclosing query's columns.
	jsc := &scope{cols: cols, parent: sc.parent, ctes: sc.ctes}
	var using []string
	if j.IsNatural {
		for _, l := range lcols {
			for _, r := range rcols {
				if b.nameEq(l.name, r.name) {
					using = append(using, l.name)
				}
			}
		}
	}
	for _, u := range j.UsingClause {
		using = append(using, u.GetString_().GetSval())
	}
	if len(using) > 0 {
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
	if j.Quals != nil {
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
	if j.Alias != nil {
		for i := range cols {
			cols[i].qual = j.Alias.Aliasname
		}
	}
	return node, cols, nil
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

// exprEqual compares two expressions structurally.
func exprEqual(a, c *plan.Expr) bool {
	if a == nil || c == nil {
		return a == c
	}
	if a.Kind != c.Kind || a.Name != c.Name || a.Col != c.Col || a.Value != c.Value || a.Null != c.Null ||
		a.Distinct != c.Distinct || a.Star != c.Star || a.Typ != c.Typ || len(a.Args) != len(c.Args) ||
		a.SubKind != c.SubKind || a.SubOp != c.SubOp || a.Sub != c.Sub || a.CaseHasOperand != c.CaseHasOperand || a.HasElse != c.HasElse {
		return false
	}
	for i := range a.Args {
		if !exprEqual(a.Args[i], c.Args[i]) {
			return false
		}
	}
	if !exprEqual(a.Filter, c.Filter) || len(a.Partition) != len(c.Partition) || len(a.Order) != len(c.Order) {
		return false
	}
	for i := range a.Partition {
		if !exprEqual(a.Partition[i], c.Partition[i]) {
			return false
		}
	}
	for i := range a.Order {
		if a.Order[i].Desc != c.Order[i].Desc || !exprEqual(a.Order[i].Expr, c.Order[i].Expr) {
			return false
		}
	}
	return true
}

func typeNameOf(tn *pg.TypeName) string {
	if tn == nil || len(tn.Names) == 0 {
		return ""
	}
	return strings.ToLower(tn.Names[len(tn.Names)-1].GetString_().GetSval())
}
