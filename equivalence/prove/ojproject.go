package prove

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Fragment "join", left-join-project-pull: a projection computed on the
// null-extended side of a left join moves above it,
//
//	R ⟕[p] π[S.., f AS c](S) ⇒ π[R.., S.., g AS c](R ⟕[p[c := f]] S)
//
// On a matched row c is f of the partner, above as below. On a padded
// row c is NULL below; above, g must be NULL there too: g is f when f is
// NULL whenever S's columns are (a strict operator over one, a CASE
// whose every WHEN rejects their NULLs and whose ELSE is NULL or so),
// else g = CASE WHEN m IS NOT NULL THEN f END for a column m of S never
// NULL in S's rows (a padded row's m is NULL, a partner's never). The
// planner leaves such projections below the join (printed nullext(f)),
// the query written with the CASE above has it above: both meet above.

// leftJoinProjectPull rewrites left join n whose right input is a
// projection computing columns, as above, or returns nil.
func (p *prover) leftJoinProjectPull(n *plan.Node, m *plan.Metadata) *plan.Node {
	if m == nil || n.Op != plan.OpJoin || n.Join != plan.LeftJoin || len(n.Inputs) != 2 || n.Inputs[1].Op != plan.OpProject {
		return nil
	}
	proj := n.Inputs[1]
	s := proj.Inputs[0]
	scols := s.OutColSet()
	defs := map[plan.ColumnID]*plan.Expr{}
	for _, it := range proj.Proj {
		if it.Expr.Kind == plan.ColRef && it.Expr.Col == it.ID {
			continue
		}
		if containsSubquery(it.Expr) || scols.Has(it.ID) {
			return nil
		}
		defs[it.ID] = it.Expr
	}
	if len(defs) == 0 {
		return nil
	}
	var marker *plan.Expr // a column of S never NULL in its rows
	items := make([]plan.ProjItem, 0, len(n.OutCols()))
	for _, c := range n.Inputs[0].OutCols() {
		items = append(items, plan.ProjItem{ID: c, Expr: plan.NewCol(c, m.Col(c).Type)})
	}
	for _, it := range proj.Proj {
		f := defs[it.ID]
		if f == nil {
			items = append(items, it)
			continue
		}
		g := f.Copy()
		if !nullOnPadded(f, scols) {
			if marker == nil {
				nn := plan.Derive(s, m).NotNull
				for _, c := range s.OutCols() {
					if nn.Has(c) {
						marker = plan.NewCol(c, m.Col(c).Type)
						break
					}
				}
				if marker == nil {
					return nil
				}
			}
			test := plan.NewOp(plan.OpIsNotNull, catalog.Bool, marker.Copy())
			g = &plan.Expr{Kind: plan.Case, Typ: f.Typ, Pos: -1, Args: []*plan.Expr{test, f.Copy()}}
		}
		items = append(items, plan.ProjItem{ID: it.ID, Expr: g})
	}
	preds := make([]*plan.Expr, len(n.Preds))
	for i, e := range n.Preds {
		preds[i] = plan.Rewrite(e.Copy(), func(x *plan.Expr) *plan.Expr {
			if x.Kind == plan.ColRef && defs[x.Col] != nil {
				return defs[x.Col].Copy()
			}
			return x
		})
	}
	j := &plan.Node{Op: plan.OpJoin, Join: plan.LeftJoin, Inputs: []*plan.Node{n.Inputs[0], s}, Preds: preds}
	p.rule(ruleLeftJoinProjectPull)
	return &plan.Node{Op: plan.OpProject, Inputs: []*plan.Node{j}, Proj: items}
}

// nullOnPadded says whether e is NULL (and raises no error) whenever
// every column of cols is NULL.
func nullOnPadded(e *plan.Expr, cols plan.ColSet) bool {
	if plan.StrictCols(e).Intersects(cols) {
		return true
	}
	if e.Kind == plan.Const {
		return e.Null
	}
	if e.Kind != plan.Case || e.CaseHasOperand {
		return false
	}
	n := len(e.Args)
	if e.HasElse {
		if !nullOnPadded(e.Args[n-1], cols) {
			return false
		}
		n--
	}
	for i := 0; i+1 < n; i += 2 {
		// Each WHEN is not TRUE there, so no THEN is taken.
		if !plan.NullRejected(e.Args[i]).Intersects(cols) {
			return false
		}
	}
	return true
}
