package build

import (
	"fmt"
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// buildSelect builds a SELECT, VALUES or set operation. outer is the
// scope of an enclosing query for correlated references; inherited CTEs
// come through it too.
func (b *builder) buildSelect(sel *pg.SelectStmt, outer *scope, ctes map[string]*cte) (*relation, error) {
	if err := b.spend(1); err != nil {
		return nil, err
	}
	if sel.IntoClause != nil {
		return nil, b.sideEffects(-1, "SELECT INTO")
	}
	if len(sel.LockingClause) > 0 {
		return nil, b.sideEffects(-1, "FOR UPDATE/SHARE (row locks)")
	}
	sc := &scope{parent: outer, ctes: map[string]*cte{}}
	for k, v := range ctes {
		sc.ctes[k] = v
	}
	if w := sel.WithClause; w != nil {
		if w.Recursive {
			return nil, b.unsupported(w.Location, "WITH RECURSIVE")
		}
		for _, cn := range w.Ctes {
			c := cn.GetCommonTableExpr()
			if c.Ctequery.GetSelectStmt() == nil {
				// PostgreSQL runs a data-modifying WITH query to
				// completion whether or not the query reads it.
				return nil, b.sideEffects(c.Location, "data-modifying WITH query "+strconv.Quote(c.Ctename)+" ("+nodeKindName(c.Ctequery)+")")
			}
			snapshot := &scope{parent: outer, ctes: map[string]*cte{}}
			for k, v := range sc.ctes {
				snapshot.ctes[k] = v
			}
			sc.ctes[b.nameKey(c.Ctename)] = &cte{def: c, visible: snapshot}
		}
	}
	if sel.Op != pg.SetOperation_SETOP_NONE && sel.Op != pg.SetOperation_SET_OPERATION_UNDEFINED {
		if b.schema.Dialect == catalog.SQLite {
			sel = sqliteCompoundOrder(sel)
		}
		return b.buildSetOp(sel, sc)
	}
	if len(sel.ValuesLists) > 0 {
		rel, err := b.buildValues(sel, sc)
		if err != nil {
			return nil, err
		}
		return b.finishOrderLimit(sel, rel, sc)
	}
	return b.buildSimpleSelect(sel, sc)
}

func (b *builder) buildValues(sel *pg.SelectStmt, sc *scope) (*relation, error) {
	n := &plan.Node{Op: plan.OpValues}
	width := -1
	var types []catalog.Type
	for _, row := range sel.ValuesLists {
		items := row.GetList().GetItems()
		if width >= 0 && len(items) != width {
			return nil, b.errf(-1, "VALUES lists must all be the same length")
		}
		width = len(items)
		var r []*plan.Expr
		for i, it := range items {
			e, err := b.expr(it, sc, nil)
			if err != nil {
				return nil, err
			}
			if len(types) <= i {
				types = append(types, e.Typ)
			} else if types[i] == catalog.Null || types[i] == catalog.Unknown {
				types[i] = e.Typ
			}
			r = append(r, e)
		}
		n.Rows = append(n.Rows, r)
	}
	if err := b.checkValuesLiterals(n.Rows); err != nil {
		return nil, err
	}
	rel := &relation{node: n}
	for i, t := range types {
		name := fmt.Sprintf("column%d", i+1)
		id := b.newColumn(name, t)
		b.noteJSONKind(id, t, n.Rows, i)
		n.Cols = append(n.Cols, id)
		rel.cols = append(rel.cols, id)
		rel.names = append(rel.names, name)
	}
	return rel, nil
}

func (b *builder) buildSetOp(sel *pg.SelectStmt, sc *scope) (*relation, error) {
	l, err := b.buildSelect(sel.Larg, sc.parent, sc.ctes)
	if err != nil {
		return nil, err
	}
	r, err := b.buildSelect(sel.Rarg, sc.parent, sc.ctes)
	if err != nil {
		return nil, err
	}
	if len(l.cols) != len(r.cols) {
		return nil, b.errf(-1, "each %s query must have the same number of columns (%d vs %d)", setOpName(sel.Op), len(l.cols), len(r.cols))
	}
	if err := b.checkSetOpStrings(l, r); err != nil {
		return nil, err
	}
	if err := b.checkSetOpLiterals(l, r); err != nil {
		return nil, err
	}
	n := &plan.Node{Op: plan.OpSetOp, Inputs: []*plan.Node{l.node, r.node}, All: sel.All, SetCols: [][]plan.ColumnID{l.cols, r.cols}}
	switch sel.Op {
	case pg.SetOperation_SETOP_UNION:
		n.Set = plan.Union
	case pg.SetOperation_SETOP_INTERSECT:
		n.Set = plan.Intersect
	case pg.SetOperation_SETOP_EXCEPT:
		n.Set = plan.Except
	}
	rel := &relation{node: n, names: l.names}
	for i, c := range l.cols {
		t := b.typeOf(c)
		if t == catalog.Null || t == catalog.Unknown {
			t = b.typeOf(r.cols[i])
		}
		b.typeUntypedNull(l.node, l.cols[i], t)
		b.typeUntypedNull(r.node, r.cols[i], t)
		// A set operation's column is as wide as its widest branch's
		// (int4 against int8 is int8): wideInt reads the branches.
		id := b.defineColumn(l.names[i], &plan.Expr{Kind: plan.Func, Name: "coalesce", Typ: t,
			Args: []*plan.Expr{plan.NewCol(l.cols[i], b.typeOf(l.cols[i])), plan.NewCol(r.cols[i], b.typeOf(r.cols[i]))}})
		n.Cols = append(n.Cols, id)
		rel.cols = append(rel.cols, id)
	}
	return b.finishOrderLimit(sel, rel, sc)
}

func setOpName(op pg.SetOperation) string {
	switch op {
	case pg.SetOperation_SETOP_INTERSECT:
		return "INTERSECT"
	case pg.SetOperation_SETOP_EXCEPT:
		return "EXCEPT"
	}
	return "UNION"
}
