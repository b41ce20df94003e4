package build

import (
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

// orderItem is one ORDER BY key of a simple SELECT: ordinals and output
// names refer to targets; anything else is an expression over the input.
type orderItem struct {
	target int // index into targets, or -1
	expr   *plan.Expr
	sb     *pg.SortBy
}

// buildSimpleSelect builds a SELECT without set operations, clause by
// clause: FROM, WHERE, the select list, GROUP BY, HAVING, ORDER BY, then
// aggregation, windows, projection, DISTINCT, sorting and LIMIT.
func (b *builder) buildSimpleSelect(sel *pg.SelectStmt, sc *scope) (*relation, error) {
	node, err := b.fromClause(sel.FromClause, sc)
	if err != nil {
		return nil, err
	}
	if sel.WhereClause != nil {
		if node, err = b.sqliteWhereAliases(sel, node, sc); err != nil {
			return nil, err
		}
	}
	st := &aggState{}
	targets, err := b.selectList(sel.TargetList, sc, st)
	if err != nil {
		return nil, err
	}
	groupExprs, groupSets, err := b.groupingClause(sel, b.groupKey(targets, sc))
	if err != nil {
		return nil, err
	}
	if b.schema.Dialect == catalog.SQLite {
		// SQLite lets HAVING and ORDER BY expressions name output aliases.
		sc.aliases = targets
	}
	var having *plan.Expr
	if sel.HavingClause != nil {
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
	orders, err := b.orderItems(sel.SortClause, targets, sc, st)
	if err != nil {
		return nil, err
	}
	if b.schema.Dialect == catalog.SQLite && !aggBeforeOrder && len(st.aggs) > nAggs {
		a := st.aggs[nAggs]
		return nil, b.sqliteErr(a.Pos, "misuse of aggregate: %s()", a.Name)
	}
	if len(groupExprs) > 0 || len(st.aggs) > 0 || having != nil || groupSets != nil {
		if node, err = b.aggregateSelect(node, sc, st, groupExprs, groupSets, having, targets, orders); err != nil {
			return nil, err
		}
	}
	if len(st.wins) > 0 {
		node = b.windowSelect(node, st.wins, targets, orders)
	}
	proj, rel := b.projectTargets(targets)
	distinct := len(sel.DistinctClause) > 0
	if distinct && sel.DistinctClause[0] != nil && sel.DistinctClause[0].Node != nil {
		return nil, b.unsupported(-1, "DISTINCT ON")
	}
	if orders, err = b.sqliteDistinctOrder(sel, orders, targets); err != nil {
		return nil, err
	}
	keys, err := b.orderKeys(orders, targets, rel.cols, distinct)
	if err != nil {
		return nil, err
	}
	return b.sortAndLimit(sel, sc, node, proj, rel, keys, distinct)
}

// fromClause joins the FROM items (a cross join, lowered where an item
// is LATERAL) and adds their columns to sc. No FROM reads one empty row.
func (b *builder) fromClause(from []*pg.Node, sc *scope) (*plan.Node, error) {
	saved := b.onQuals
	defer func() { b.onQuals = saved }()
	b.onQuals = nil
	from = b.sqliteLeftDeep(from)
	b.noteSQLiteNonBase(from, sc)
	var quals []*pg.Node
	if b.deferInnerOn && innerJoinsOnly(from) {
		b.onQuals = &quals
	}
	node, err := b.fromItems(from, sc)
	if err != nil || len(quals) == 0 {
		return node, err
	}
	return b.innerOnFilter(node, quals, sc)
}

func (b *builder) fromItems(from []*pg.Node, sc *scope) (*plan.Node, error) {
	var node *plan.Node
	for _, item := range from {
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
	return node, nil
}

// whereClause places the WHERE condition, which may hold no aggregate,
// as a Filter over node.
func (b *builder) whereClause(where *pg.Node, node *plan.Node, sc *scope) (*plan.Node, error) {
	w, err := b.expr(where, sc, nil)
	if err != nil {
		return nil, err
	}
	if w.HasAgg() {
		return nil, b.errf(-1, "aggregate functions are not allowed in WHERE")
	}
	return &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{node}, Preds: []*plan.Expr{w}}, nil
}

// selectList builds the select list, with * expanded, collecting its
// aggregate and window calls in st.
func (b *builder) selectList(list []*pg.Node, sc *scope, st *aggState) ([]target, error) {
	var targets []target
	for _, tn := range list {
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
	return targets, nil
}

// groupKey returns the builder of one GROUP BY key: an ordinal or an
// output alias names a target, anything else is an expression over the
// input.
func (b *builder) groupKey(targets []target, sc *scope) func(*pg.Node) (*plan.Expr, error) {
	return func(gn *pg.Node) (*plan.Expr, error) {
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
	}
}

// orderItems reads the ORDER BY keys: ordinals and output names refer
// to targets; anything else is built as an expression over the input.
func (b *builder) orderItems(sorts []*pg.Node, targets []target, sc *scope, st *aggState) ([]orderItem, error) {
	var orders []orderItem
	for _, sn := range sorts {
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
	return orders, nil
}

// aggregateSelect places the Aggregate (with grouping sets lowered) and
// the HAVING filter over node, and rewrites the targets, having and the
// order expressions in place to read the aggregate's output.
func (b *builder) aggregateSelect(node *plan.Node, sc *scope, st *aggState, groupExprs []*plan.Expr, groupSets [][]int,
	having *plan.Expr, targets []target, orders []orderItem) (*plan.Node, error) {
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
	node, groupCols, err := b.buildAggregate(node, sc, groupExprs, st, rewriteAll)
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
	return node, nil
}

// windowSelect computes the window calls as new columns of a Window over
// node and makes the targets and order expressions read those columns.
func (b *builder) windowSelect(node *plan.Node, wins []*plan.Expr, targets []target, orders []orderItem) *plan.Node {
	win := &plan.Node{Op: plan.OpWindow, Inputs: []*plan.Node{node}}
	for _, w := range wins {
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
	return win
}

// projectTargets makes the Project of the select list, its input still
// unset, and the relation of its output columns. A target that is a
// column keeps its ID.
func (b *builder) projectTargets(targets []target) (*plan.Node, *relation) {
	proj := &plan.Node{Op: plan.OpProject}
	rel := &relation{}
	for _, t := range targets {
		id := plan.ColumnID(-1)
		if t.expr.Kind == plan.ColRef {
			id = t.expr.Col
		} else {
			id = b.defineColumn(t.name, t.expr)
		}
		proj.Proj = append(proj.Proj, plan.ProjItem{ID: id, Expr: t.expr})
		rel.cols = append(rel.cols, id)
		rel.names = append(rel.names, t.name)
	}
	return proj, rel
}

// orderKeys makes the sort keys of the ORDER BY items. With DISTINCT
// the sort runs above the projection, so every key must be an output
// column (cols).
func (b *builder) orderKeys(orders []orderItem, targets []target, cols []plan.ColumnID, distinct bool) ([]plan.SortKey, error) {
	var keys []plan.SortKey
	for _, o := range orders {
		var e *plan.Expr
		switch {
		case o.target >= 0 && distinct:
			e = plan.NewCol(cols[o.target], targets[o.target].expr.Typ)
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
			e = plan.NewCol(cols[found], targets[found].expr.Typ)
		default:
			e = o.expr
		}
		k, err := b.sortKey(o.sb, e)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// sortAndLimit finishes the SELECT: with DISTINCT, Distinct and Sort go
// above the projection; without it, Sort and LIMIT go below it, so that
// keys may read input columns the projection drops.
func (b *builder) sortAndLimit(sel *pg.SelectStmt, sc *scope, node, proj *plan.Node, rel *relation, keys []plan.SortKey, distinct bool) (*relation, error) {
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
		return nil, b.nameErrf(cr.Location, "missing FROM-clause entry for table %q", qual)
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
