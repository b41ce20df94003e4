package prove

import (
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "simplify": rewrites of one node into an equivalent, simpler
// one, applied to both plans as the comparison reaches each node. They
// build new nodes and never change the plans.
//
//   - limit over at most one row: LIMIT n (n ≥ 1, no OFFSET) keeps it.
//   - grouping on a key: every group is one row, so the aggregate is a
//     projection (MIN, MAX, ANY_VALUE of x are x; COUNT(*) and COUNT(1)
//     are 1, COUNT([DISTINCT] x) is 0 where x is NULL, else 1).
//   - constant grouping keys: they split no group, so they drop out of
//     GROUP BY while another key remains (an aggregate with no GROUP BY
//     would make a row from an empty input).
//   - duplicate-insensitive aggregates (DISTINCT, MIN, MAX, ...) over a
//     DISTINCT or a GROUP BY without aggregates: the deduplication
//     changes no group and no value.
//   - left join along a foreign key: when the condition equates NOT NULL
//     foreign key columns with the key they reference, every left row
//     has exactly one partner, so the left join is an inner join (an
//     assumption on SQLite, which does not enforce foreign keys).
//   - COUNT over nothing: an aggregate with no GROUP BY whose calls are
//     all COUNTs of a NULL constant or under a never-true FILTER is one
//     row of zeros.
func (p *prover) simplify(n *plan.Node, m *plan.Metadata) *plan.Node {
	if (n.Op == plan.OpProject || n.Op == plan.OpFilter) && len(n.Inputs) == 1 {
		// A projection or filter over a UNION ALL moves into it, also
		// when the UNION ALL appears once the input is simplified.
		if in := p.simplify(n.Inputs[0], m); in != n.Inputs[0] && in.Op == plan.OpSetOp {
			c := *n
			c.Inputs = []*plan.Node{in}
			n = &c
		}
	}
	for i := 0; i < 8; i++ {
		if j := p.fkLeftJoin(n, m); j != nil {
			n = j
			continue
		}
		if j := p.selfOuterJoin(n, m); j != nil {
			n = j
			continue
		}
		if j := p.outerJoinEmptySide(n, m); j != nil {
			n = j
			continue
		}
		if j := p.leftJoinSelfKey(n, m); j != nil {
			n = j
			continue
		}
		if j := p.leftJoinUnread(n, m); j != nil {
			n = j
			continue
		}
		if j := p.leftJoinHoist(n, m); j != nil {
			n = j
			continue
		}
		if j := p.leftJoinSwap(n, m); j != nil {
			n = j
			continue
		}
		if j := p.nullTestsRejected(n); j != nil {
			n = j
			continue
		}
		if j := p.aggNullRowsDropped(n); j != nil {
			n = j
			continue
		}
		if j := p.isTrueConjuncts(n, m); j != nil {
			n = j
			continue
		}
		if j := p.aggLeftJoinInner(n); j != nil {
			n = j
			continue
		}
		if j := p.aggConstantCalls(n, m); j != nil {
			n = j
			continue
		}
		if j := p.distinctPinnedLimit(n, m); j != nil {
			n = j
			continue
		}
		if j := p.groupOnEqualKey(n, m); j != nil {
			n = j
			continue
		}
		if j := p.leftJoinProjectPull(n, m); j != nil {
			n = j
			continue
		}
		if j := p.aggLeftJoinUnread(n, m); j != nil {
			n = j
			continue
		}
		if j := p.limitAboveRowBound(n, m); j != nil {
			n = j
			continue
		}
		if j := p.limitPastLeftJoin(n, m); j != nil {
			n = j
			continue
		}
		if j := p.scalarValuesColumns(n, m); j != nil {
			n = j
			continue
		}
		if j := p.decorrelate(n, m); j != nil {
			n = j
			continue
		}
		if j := p.aggFilterWhere(n); j != nil {
			n = j
			continue
		}
		if j := p.countCaseFilter(n, m); j != nil {
			n = j
			continue
		}
		if j := p.distinctJoinSemi(n, m); j != nil {
			p.rule(ruleDistinctJoinSemi)
			n = j
			continue
		}
		if j := p.uniqueJoinSemi(n, m); j != nil {
			p.rule(ruleUniqueJoinSemi)
			n = j
			continue
		}
		if j := sortKeyPrefix(n, m); j != nil {
			p.rule(ruleSortKeyPrefix)
			n = j
			continue
		}
		if j := p.antiJoinFK(n, m); j != nil {
			n = j
			continue
		}
		if j := havingCountZero(n, m); j != nil {
			p.rule(ruleHavingCountZero)
			n = j
			continue
		}
		if j := leftJoinAggFilter(n); j != nil {
			p.rule(ruleLeftJoinAggFilter)
			n = j
			continue
		}
		if j := countDistinctValues(n, m); j != nil {
			p.rule(ruleCountDistinctValues)
			n = j
			continue
		}
		if j := groupKeySwap(n, m); j != nil {
			p.rule(ruleGroupKeySwap)
			n = j
			continue
		}
		if j := p.likeForms(n, m); j != nil {
			p.rule(ruleLikeForms)
			n = j
			continue
		}
		if j := timestampBounds(n); j != nil {
			p.rule(ruleTimestamptzBound)
			n = j
			continue
		}
		if j := p.quantAgg(n, m); j != nil {
			n = j
			continue
		}
		if j := p.unnest(n, m); j != nil {
			n = j
			continue
		}
		if j := existsLimit(n); j != nil {
			p.rule(ruleExistsLimitNull)
			n = j
			continue
		}
		if j := p.anySemi(n); j != nil {
			p.rule(ruleAnySemiJoin)
			n = j
			continue
		}
		if j := existsOuter(n); j != nil {
			p.rule(ruleExistsOuterConjunct)
			n = j
			continue
		}
		if j := p.notAnyAnti(n); j != nil {
			p.rule(ruleNotAnyAntiJoin)
			n = j
			continue
		}
		if j := p.unionConstPull(n, m); j != nil {
			p.rule(ruleUnionConstPull)
			n = j
			continue
		}
		if j := p.aggOverEmpty(n, m); j != nil {
			n = j
			continue
		}
		if j := filterValues(n); j != nil {
			p.rule(ruleFilterValues)
			n = j
			continue
		}
		next, rule := simplifyOnce(n, m)
		if next == nil {
			if j := p.groupDetermined(n, m); j != nil {
				n = j
				continue
			}
			if j := p.aggThroughJoin(n, m); j != nil {
				n = j
				continue
			}
			if j := p.aggThroughUnion(n, m); j != nil {
				n = j
				continue
			}
			if j := p.eagerAgg(n, m); j != nil {
				n = j
				continue
			}
			if j := p.distinctBelow(n, m); j != nil {
				n = j
				continue
			}
			return n
		}
		p.rule(rule)
		n = next
	}
	return n
}

func simplifyOnce(n *plan.Node, m *plan.Metadata) (*plan.Node, *Rule) {
	switch n.Op {
	case plan.OpFilter:
		return filterIntoUnionAll(n, m)
	case plan.OpProject:
		return simplifyProject(n)
	case plan.OpLimit:
		if n.Offset == nil && n.Limit != nil && n.Limit.Kind == plan.Const && !n.Limit.Null && n.Limit.Typ == catalog.Int &&
			positiveInt(n.Limit.Value) && atMostOneRow(n.Inputs[0], m) {
			return n.Inputs[0], ruleLimitOneRow
		}
		return simplifyLimit(n)
	case plan.OpAggregate:
		return simplifyAggregate(n, m)
	}
	return nil, nil
}

// filterIntoUnionAll pushes filter n into each branch of the UNION ALL
// below it (or of a UNION, where identityRead holds), or returns nil.
func filterIntoUnionAll(n *plan.Node, m *plan.Metadata) (*plan.Node, *Rule) {
	u := n.Inputs[0]
	if u.Op != plan.OpSetOp || u.Set != plan.Union {
		return nil, nil
	}
	rule := ruleFilterIntoUnionAll
	if !u.All {
		// UNION keeps one row of each group of equal rows, whichever:
		// the filter reads it alike when = is identity on what it reads.
		if !identityRead(n.Preds, m) {
			return nil, nil
		}
		rule = ruleFilterIntoUnion
	}
	c := *u
	c.Inputs = make([]*plan.Node, len(u.Inputs))
	for i, in := range u.Inputs {
		sub := map[plan.ColumnID]plan.ColumnID{}
		for k, col := range u.Cols {
			sub[col] = u.SetCols[i][k]
		}
		preds := make([]*plan.Expr, len(n.Preds))
		for k, e := range n.Preds {
			preds[k] = plan.Rewrite(e.Copy(), func(x *plan.Expr) *plan.Expr {
				if x.Kind == plan.ColRef {
					if to, ok := sub[x.Col]; ok {
						return plan.NewCol(to, x.Typ)
					}
				}
				return x
			})
		}
		c.Inputs[i] = &plan.Node{Op: plan.OpFilter, Inputs: []*plan.Node{in}, Preds: preds}
	}
	return &c, rule
}

// identityRead says whether every column preds read is one whose = is
// identity on its values (an integer, a text under a deterministic
// collation, ...) and that they read no subquery and call nothing
// volatile: equal rows give them one result.
func identityRead(preds []*plan.Expr, m *plan.Metadata) bool {
	if m == nil {
		return false
	}
	for _, e := range preds {
		if containsSubquery(e) || plan.Volatile(e) != "" {
			return false
		}
		for _, c := range e.Cols().Ordered() {
			if !m.ColIdentityEq(c, c) {
				return false
			}
		}
	}
	return true
}

// simplifyProject selects columns inside the UNION ALL below projection
// n, or drops n when it keeps all of a set operation's columns.
func simplifyProject(n *plan.Node) (*plan.Node, *Rule) {
	if u := n.Inputs[0]; u.Op == plan.OpSetOp && u.Set == plan.Union && u.All {
		pos := map[plan.ColumnID]int{}
		for k, col := range u.Cols {
			pos[col] = k
		}
		var cols []plan.ColumnID
		var picks []int
		for _, it := range n.Proj {
			k, ok := pos[it.ID]
			if it.Expr.Kind != plan.ColRef || it.Expr.Col != it.ID || !ok {
				return nil, nil
			}
			cols = append(cols, it.ID)
			picks = append(picks, k)
		}
		c := *u
		c.Cols = cols
		c.SetCols = make([][]plan.ColumnID, len(u.SetCols))
		for i, sc := range u.SetCols {
			for _, k := range picks {
				c.SetCols[i] = append(c.SetCols[i], sc[k])
			}
		}
		return &c, ruleProjectIntoUnionAll
	}
	if u := n.Inputs[0]; u.Op == plan.OpSetOp && identityProject(n) {
		return u, ruleProjectAllSetOp
	}
	return nil, nil
}

// simplifyAggregate rewrites aggregate n: COUNTs over nothing, calls
// blind to duplicates over a deduplication, constant grouping keys,
// grouping on a key of the input.
func simplifyAggregate(n *plan.Node, m *plan.Metadata) (*plan.Node, *Rule) {
	in := n.Inputs[0]
	if v := countOverNothing(n); v != nil {
		return v, ruleCountEmptyZero
	}
	if len(n.GroupBy) > 0 && dupInsensitive(n.Aggs) && (in.Op == plan.OpDistinct || (in.Op == plan.OpAggregate && len(in.Aggs) == 0)) {
		c := *n
		c.Inputs = []*plan.Node{in.Inputs[0]}
		return &c, ruleAggOverDistinct
	}
	if len(n.GroupBy) == 0 && len(n.Aggs) > 0 && dupInsensitive(n.Aggs) && (in.Op == plan.OpDistinct || (in.Op == plan.OpAggregate && len(in.Aggs) == 0)) {
		c := *n
		c.Inputs = []*plan.Node{in.Inputs[0]}
		return &c, ruleAggOverDistinct
	}
	if len(n.GroupBy) > 1 {
		if p := constGroupKey(n, m, constCols(in)); p != nil {
			return p, ruleConstGroupKey
		}
		if p := constGroupKey(n, m, pinnedCols(in, m)); p != nil {
			return p, rulePinnedGroupKey
		}
	}
	if len(n.GroupBy) > 0 && plan.Derive(in, m).HasKeyWithin(plan.MakeColSet(n.GroupBy...)) {
		if p := groupOnKey(n, m); p != nil {
			return p, ruleGroupOnKey
		}
	}
	return nil, nil
}

// countOverNothing is the one row of zeros of an aggregate without
// grouping whose calls all COUNT no value (a FALSE or NULL filter, an
// always-NULL argument), or nil.
func countOverNothing(n *plan.Node) *plan.Node {
	if len(n.GroupBy) == 0 && len(n.Aggs) > 0 {
		zeros := true
		for _, a := range n.Aggs {
			e := a.Expr
			none := e.Filter != nil && (e.Filter.IsFalse() || (e.Filter.Kind == plan.Const && e.Filter.Null))
			nullArg := !e.Star && len(e.Args) == 1 && alwaysNull(e.Args[0])
			if e.Kind != plan.Agg || e.Name != "count" || !(none || nullArg) {
				zeros = false
			}
		}
		if zeros {
			row := make([]*plan.Expr, len(n.Aggs))
			cols := make([]plan.ColumnID, len(n.Aggs))
			for i, a := range n.Aggs {
				row[i] = plan.NewConst(catalog.Int, "0")
				cols[i] = a.ID
			}
			return &plan.Node{Op: plan.OpValues, Rows: [][]*plan.Expr{row}, Cols: cols}
		}
	}
	return nil
}

// constGroupKey regroups aggregate n without its grouping columns that
// are constant in its input, projecting the constants back, or returns
// nil.
func constGroupKey(n *plan.Node, m *plan.Metadata, consts map[plan.ColumnID]*plan.Expr) *plan.Node {
	var keep []plan.ColumnID
	var dropped []plan.ProjItem
	for _, g := range n.GroupBy {
		if c := consts[g]; c != nil {
			dropped = append(dropped, plan.ProjItem{ID: g, Expr: c.Copy()})
		} else {
			keep = append(keep, g)
		}
	}
	if len(dropped) > 0 && len(keep) > 0 {
		c := *n
		c.GroupBy = keep
		agg := &c
		var proj []plan.ProjItem
		for _, g := range n.GroupBy {
			if consts[g] != nil {
				proj = append(proj, plan.ProjItem{ID: g, Expr: consts[g].Copy()})
			} else {
				proj = append(proj, plan.ProjItem{ID: g, Expr: plan.NewCol(g, m.Col(g).Type)})
			}
		}
		for _, a := range n.Aggs {
			proj = append(proj, plan.ProjItem{ID: a.ID, Expr: plan.NewCol(a.ID, m.Col(a.ID).Type)})
		}
		return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{agg}, Proj: proj}
	}
	return nil
}

// groupOnKey reads aggregate n, grouped on a key of its input, off each
// input row (every group is one row), or returns nil when a call cannot
// be read so.
func groupOnKey(n *plan.Node, m *plan.Metadata) *plan.Node {
	var proj []plan.ProjItem
	for _, g := range n.GroupBy {
		proj = append(proj, plan.ProjItem{ID: g, Expr: plan.NewCol(g, m.Col(g).Type)})
	}
	for _, a := range n.Aggs {
		e := a.Expr
		if e.Kind != plan.Agg || e.Filter != nil {
			return nil
		}
		switch {
		case e.Name == "count" && (e.Star || countsRows(e)):
			proj = append(proj, plan.ProjItem{ID: a.ID, Expr: plan.NewConst(catalog.Int, "1")})
		case e.Name == "count" && len(e.Args) == 1 && !e.Args[0].HasSubquery():
			// One row: COUNT([DISTINCT] x) is 1 unless x is NULL.
			isNull := plan.NewOp(plan.OpIsNull, catalog.Bool, e.Args[0].Copy())
			proj = append(proj, plan.ProjItem{ID: a.ID, Expr: &plan.Expr{Kind: plan.Case, Typ: e.Typ, HasElse: true, Pos: -1,
				Args: []*plan.Expr{isNull, plan.NewConst(e.Typ, "0"), plan.NewConst(e.Typ, "1")}}})
		case (e.Name == "min" || e.Name == "max" || e.Name == "any_value") && len(e.Args) == 1 && e.Args[0].Typ == e.Typ:
			proj = append(proj, plan.ProjItem{ID: a.ID, Expr: e.Args[0].Copy()})
		default:
			return nil
		}
	}
	return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{n.Inputs[0]}, Proj: proj}
}

// dupInsensitive says whether every call ignores duplicate input rows.
func dupInsensitive(aggs []plan.ProjItem) bool {
	for _, a := range aggs {
		e := a.Expr
		if e.Kind != plan.Agg {
			return false
		}
		if d, _ := describeAgg(e); !d.dupInsensitive && !e.Distinct {
			return false
		}
	}
	return true
}

// constCols returns the columns a projection on top of n defines as
// non-NULL constants.
func constCols(n *plan.Node) map[plan.ColumnID]*plan.Expr {
	out := map[plan.ColumnID]*plan.Expr{}
	if n.Op == plan.OpProject {
		for _, it := range n.Proj {
			if it.Expr.Kind == plan.Const && !it.Expr.Null {
				out[it.ID] = it.Expr
			}
		}
	}
	return out
}

// pinnedCols returns the columns a filter n pins to a non-NULL constant
// with a conjunct col = c that is identity on their values (an integer,
// a text under a deterministic collation, ...): every row n keeps holds
// c there, so the column is that constant, typed as the column.
func pinnedCols(n *plan.Node, m *plan.Metadata) map[plan.ColumnID]*plan.Expr {
	out := map[plan.ColumnID]*plan.Expr{}
	if n.Op != plan.OpFilter {
		return out
	}
	for _, e := range n.Preds {
		if !e.IsOp(plan.OpEq) || len(e.Args) != 2 {
			continue
		}
		for k := 0; k < 2; k++ {
			x, c := e.Args[k], e.Args[1-k]
			if x.Kind == plan.ColRef && c.Kind == plan.Const && !c.Null && c.Typ == m.Col(x.Col).Type && m.IdentityEq(x, c) {
				out[x.Col] = c
			}
		}
	}
	return out
}

// atMostOneRow reports whether n returns at most one row on any database.
func atMostOneRow(n *plan.Node, m *plan.Metadata) bool {
	switch n.Op {
	case plan.OpLimit:
		if n.Limit != nil && n.Limit.Kind == plan.Const && (n.Limit.Value == "0" || n.Limit.Value == "1") {
			return true
		}
		return atMostOneRow(n.Inputs[0], m)
	case plan.OpSort, plan.OpProject, plan.OpFilter, plan.OpDistinct:
		return atMostOneRow(n.Inputs[0], m)
	case plan.OpAggregate:
		if len(n.GroupBy) == 0 {
			return true
		}
	case plan.OpValues:
		return len(n.Rows) <= 1
	}
	return plan.Derive(n, m).AtMostOneRow()
}

// fkLeftJoin returns n as an inner join when it is a left join along a
// foreign key from NOT NULL columns to the key of a scanned table.
func (p *prover) fkLeftJoin(n *plan.Node, m *plan.Metadata) *plan.Node {
	if n.Op != plan.OpJoin || n.Join != plan.LeftJoin || len(n.Preds) == 0 || n.Inputs[1].Op != plan.OpScan || n.Inputs[1].Table == nil {
		return nil
	}
	right := n.Inputs[1]
	rightOrd := map[plan.ColumnID]int{}
	for i, c := range right.Cols {
		rightOrd[c] = i
	}
	nulls := p.nullA
	if m == p.b.Meta {
		nulls = p.nullB
	}
	leftCols := n.Inputs[0].OutColSet()
	inst := -1
	pairs := map[int]int{} // child ordinal -> parent ordinal
	for _, e := range n.Preds {
		if !e.IsOp(plan.OpEq) || len(e.Args) != 2 || e.Args[0].Kind != plan.ColRef || e.Args[1].Kind != plan.ColRef {
			return nil
		}
		l, r := e.Args[0].Col, e.Args[1].Col
		if _, ok := rightOrd[l]; ok {
			l, r = r, l
		}
		ro, ok := rightOrd[r]
		if !ok || !leftCols.Has(l) || nulls.Has(l) {
			return nil
		}
		meta := m.Col(l)
		if meta.Instance < 0 || !meta.NotNull || (inst >= 0 && meta.Instance != inst) {
			return nil
		}
		inst = meta.Instance
		pairs[meta.Ordinal] = ro
	}
	if inst < 0 || inst >= len(m.Instances) || m.Instances[inst].Table == nil {
		return nil
	}
	child := m.Instances[inst].Table
	for _, fk := range child.ForeignKeys {
		if !fkBindsPairs(fk, right.Table, pairs) {
			continue
		}
		subj := ""
		for k, c := range fk.Columns {
			if k > 0 {
				subj += ", "
			}
			subj += child.Name + "." + child.Columns[c].Name + " references " + right.Table.Name + "." + right.Table.Columns[fk.RefColumns[k]].Name
		}
		if !p.opts.TrustForeignKeys {
			p.assume(Assumption{Kind: AssumeForeignKey, Subject: subj})
		}
		p.ruleOn(ruleFKLeftJoinInner, "%s", subj)
		j := *n
		j.Join = plan.InnerJoin
		return &j
	}
	return nil
}

// referencesKey says whether cols are the table's primary key or one of
// its unique keys, as a set.
// fkBindsPairs says fk references a key of right and its columns are
// exactly those of pairs (child ordinal to parent ordinal).
func fkBindsPairs(fk catalog.ForeignKey, right *catalog.Table, pairs map[int]int) bool {
	if fk.RefTable != right.Name || len(fk.Columns) != len(pairs) || !referencesKey(right, fk.RefColumns) {
		return false
	}
	for k, c := range fk.Columns {
		if ro, ok := pairs[c]; !ok || ro != fk.RefColumns[k] {
			return false
		}
	}
	return true
}

func referencesKey(t *catalog.Table, cols []int) bool {
	same := func(k []int) bool {
		if len(k) != len(cols) {
			return false
		}
		for _, c := range k {
			found := false
			for _, d := range cols {
				if c == d {
					found = true
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	if len(t.PrimaryKey) > 0 && same(t.PrimaryKey) {
		return true
	}
	for _, u := range t.Unique {
		if same(u) {
			return true
		}
	}
	return false
}

// positiveInt says whether v is a whole number of at least 1.
func positiveInt(v string) bool {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	return err == nil && n >= 1
}

// alwaysNull says whether e is NULL in every row: NULL, or a strict
// operator or function of something always NULL.
func alwaysNull(e *plan.Expr) bool {
	if e.Kind == plan.Const {
		return e.Null
	}
	strict := (e.Kind == plan.Op && strictOps[e.Name]) || (e.Kind == plan.Func && strictFuncs[e.Name] && e.Filter == nil)
	if !strict {
		return false
	}
	for _, a := range e.Args {
		if alwaysNull(a) {
			return true
		}
	}
	return false
}

// countsRows says whether a COUNT call counts every input row: COUNT(*)
// or COUNT of a non-NULL constant (COUNT(1)).
func countsRows(e *plan.Expr) bool {
	if e.Kind != plan.Agg || e.Name != "count" || e.Distinct || e.Filter != nil {
		return false
	}
	return e.Star || (len(e.Args) == 1 && e.Args[0].Kind == plan.Const && !e.Args[0].Null)
}

// identityProject says whether projection n passes its input's columns
// through unchanged, all of them and in order (SELECT * FROM (A
// INTERSECT B)).
func identityProject(n *plan.Node) bool {
	in := n.Inputs[0].OutCols()
	if len(n.Proj) != len(in) {
		return false
	}
	for i, it := range n.Proj {
		if it.ID != in[i] || it.Expr.Kind != plan.ColRef || it.Expr.Col != it.ID {
			return false
		}
	}
	return true
}
