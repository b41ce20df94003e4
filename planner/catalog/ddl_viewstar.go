package catalog

import (
	"fmt"
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// PostgreSQL expands a view's SELECT * (and fixes a NATURAL join's
// columns) when the view is created: a column added to its table later
// is not in the view. The catalog keeps a view as its SQL, expanded
// when a query reads it, so before a table gains a column (ALTER TABLE
// ... ADD COLUMN, CREATE OR REPLACE VIEW of a view it reads) every view
// over it that has a star is frozen: its SQL becomes
// SELECT s.c1, ..., s.cn FROM (<its SQL>) AS s over the columns it has
// now. (A view's columns have distinct names, or PostgreSQL refuses it.)
// A view whose columns the loader cannot name is dropped and reported:
// queries over it do not plan, which is no wrong verdict. SQLite expands
// a view's star each time the view is read: nothing is frozen there.

// frozenAlias names the derived table a frozen view selects from.
const frozenAlias = "pgequiv_frozen"

// freezeViews freezes the views that read a relation in changing (by
// normalised name) and have a star or a NATURAL join.
func (b *ddlBuilder) freezeViews(changing map[string]bool, why string) {
	if b.d != Postgres {
		return
	}
	var keep []*Table
	for _, v := range b.views {
		sel, reads, star := b.viewQuery(v)
		if b.frozen[b.norm(v.Name)] || sel == nil || !star || !slices.ContainsFunc(reads, func(n string) bool { return changing[n] }) {
			keep = append(keep, v)
			continue
		}
		names, ok := b.selectNames(sel, nil, 0)
		if ok {
			if sql, err := frozenSQL(sel, names); err == nil {
				v.ViewSQL = sql
				b.frozen[b.norm(v.Name)] = true
				keep = append(keep, v)
				continue
			}
		}
		b.drop(fmt.Sprintf("view %s: its SELECT * was expanded when it was created, before %s; the loader cannot name its columns, so queries over it do not plan", v.Name, why))
	}
	b.views = keep
}

// viewQuery parses a view's SQL and says which relations it reads (by
// normalised name) and whether it has a star or a NATURAL join.
func (b *ddlBuilder) viewQuery(v *Table) (*pg.SelectStmt, []string, bool) {
	tree, err := pg.Parse(v.ViewSQL)
	if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
		return nil, nil, false
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	var reads []string
	star := false
	walkMessages(sel.ProtoReflect(), func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *pg.RangeVar:
			reads = append(reads, b.norm(x.Relname))
		case *pg.ColumnRef:
			if n := len(x.Fields); n > 0 && x.Fields[n-1].GetAStar() != nil {
				star = true
			}
		case *pg.JoinExpr:
			star = star || x.IsNatural
		}
	})
	return sel, reads, star
}

// frozenSQL is SELECT s.names... FROM (sel) AS s.
func frozenSQL(sel *pg.SelectStmt, names []string) (string, error) {
	var targets []*pg.Node
	for _, n := range names {
		ref := pg.MakeColumnRefNode([]*pg.Node{pg.MakeStrNode(frozenAlias), pg.MakeStrNode(n)}, -1)
		targets = append(targets, pg.MakeResTargetNodeWithVal(ref, -1))
	}
	from := &pg.Node{Node: &pg.Node_RangeSubselect{RangeSubselect: &pg.RangeSubselect{
		Subquery: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}},
		Alias:    &pg.Alias{Aliasname: frozenAlias},
	}}}
	outer := &pg.SelectStmt{TargetList: targets, FromClause: []*pg.Node{from}}
	return pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: outer}}}}})
}

// relCols is a FROM item's columns as a star expands them, and the
// items a qualified star (q.*) may name inside it.
type relCols struct {
	star  []string
	quals map[string][]string
}

// maxNameDepth bounds the views and subqueries selectNames follows.
const maxNameDepth = 32

// selectNames names the columns sel returns, as PostgreSQL names them
// (FigureColname), with ctes the common table expressions in scope;
// false where it cannot tell.
func (b *ddlBuilder) selectNames(sel *pg.SelectStmt, ctes map[string]*pg.CommonTableExpr, depth int) ([]string, bool) {
	if sel == nil || depth > maxNameDepth {
		return nil, false
	}
	if sel.Op != pg.SetOperation_SETOP_NONE {
		return b.selectNames(sel.Larg, ctes, depth+1)
	}
	if len(sel.ValuesLists) > 0 {
		var out []string
		for i := range sel.ValuesLists[0].GetList().GetItems() {
			out = append(out, fmt.Sprintf("column%d", i+1))
		}
		return out, true
	}
	if w := sel.WithClause; w != nil {
		inner := map[string]*pg.CommonTableExpr{}
		for k, v := range ctes {
			inner[k] = v
		}
		for _, c := range w.Ctes {
			if cte := c.GetCommonTableExpr(); cte != nil {
				inner[cte.Ctename] = cte
			}
		}
		ctes = inner
	}
	scope := relCols{quals: map[string][]string{}}
	for _, item := range sel.FromClause {
		rc, ok := b.fromNames(item, ctes, depth+1)
		if !ok {
			return nil, false
		}
		scope.star = append(scope.star, rc.star...)
		for q, cols := range rc.quals {
			scope.quals[q] = cols
		}
	}
	var out []string
	for _, tn := range sel.TargetList {
		rt := tn.GetResTarget()
		if rt == nil {
			return nil, false
		}
		if rt.Name != "" {
			out = append(out, rt.Name)
			continue
		}
		if cr := rt.Val.GetColumnRef(); cr != nil && len(cr.Fields) > 0 && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			switch len(cr.Fields) {
			case 1:
				out = append(out, scope.star...)
			case 2:
				cols, ok := scope.quals[cr.Fields[0].GetString_().GetSval()]
				if !ok {
					return nil, false
				}
				out = append(out, cols...)
			default:
				return nil, false
			}
			continue
		}
		name, ok := figureColname(rt.Val)
		if !ok {
			return nil, false
		}
		out = append(out, name)
	}
	return out, true
}

// figureColname is the name PostgreSQL gives an unnamed select-list
// expression, for the forms the loader knows.
func figureColname(e *pg.Node) (string, bool) {
	switch {
	case e.GetColumnRef() != nil:
		f := e.GetColumnRef().Fields
		return f[len(f)-1].GetString_().GetSval(), f[len(f)-1].GetString_() != nil
	case e.GetFuncCall() != nil:
		n := e.GetFuncCall().Funcname
		return n[len(n)-1].GetString_().GetSval(), true
	case e.GetTypeCast() != nil:
		if name, ok := figureColname(e.GetTypeCast().Arg); ok && name != "?column?" {
			return name, true
		}
		return typeName(e.GetTypeCast().TypeName), true
	case e.GetCaseExpr() != nil:
		return "case", true
	case e.GetCoalesceExpr() != nil:
		return "coalesce", true
	case e.GetAConst() != nil, e.GetAExpr() != nil, e.GetBoolExpr() != nil:
		return "?column?", true
	}
	return "", false
}

// fromNames is relCols of one FROM item.
func (b *ddlBuilder) fromNames(item *pg.Node, ctes map[string]*pg.CommonTableExpr, depth int) (relCols, bool) {
	if depth > maxNameDepth {
		return relCols{}, false
	}
	aliased := func(cols []string, alias *pg.Alias, qual string) relCols {
		cols = slices.Clone(cols)
		if alias != nil {
			qual = alias.Aliasname
			for i, n := range alias.Colnames {
				if i < len(cols) {
					cols[i] = n.GetString_().GetSval()
				}
			}
		}
		return relCols{star: cols, quals: map[string][]string{qual: cols}}
	}
	switch x := item.Node.(type) {
	case *pg.Node_RangeVar:
		rv := x.RangeVar
		if cte, ok := ctes[rv.Relname]; ok && rv.Schemaname == "" {
			cols, ok := b.selectNames(cte.Ctequery.GetSelectStmt(), ctes, depth+1)
			if !ok {
				return relCols{}, false
			}
			for i, n := range cte.Aliascolnames {
				if i < len(cols) {
					cols[i] = n.GetString_().GetSval()
				}
			}
			return aliased(cols, rv.Alias, rv.Relname), true
		}
		if ts := b.lookup(rv); ts != nil {
			var cols []string
			for _, c := range ts.t.Columns {
				cols = append(cols, c.Name)
			}
			return aliased(cols, rv.Alias, rv.Relname), true
		}
		for _, v := range b.views {
			if b.norm(v.Name) != b.norm(rv.Relname) {
				continue
			}
			sel, _, _ := b.viewQuery(v)
			cols, ok := b.selectNames(sel, nil, depth+1)
			if !ok {
				return relCols{}, false
			}
			for i, n := range v.ViewColumns {
				if i < len(cols) {
					cols[i] = n
				}
			}
			return aliased(cols, rv.Alias, rv.Relname), true
		}
	case *pg.Node_RangeSubselect:
		if x.RangeSubselect.Lateral {
			return relCols{}, false
		}
		cols, ok := b.selectNames(x.RangeSubselect.Subquery.GetSelectStmt(), ctes, depth+1)
		if !ok || x.RangeSubselect.Alias == nil {
			return relCols{}, false
		}
		return aliased(cols, x.RangeSubselect.Alias, ""), true
	case *pg.Node_JoinExpr:
		j := x.JoinExpr
		l, ok := b.fromNames(j.Larg, ctes, depth+1)
		if !ok {
			return relCols{}, false
		}
		r, ok := b.fromNames(j.Rarg, ctes, depth+1)
		if !ok {
			return relCols{}, false
		}
		var using []string
		for _, n := range j.UsingClause {
			using = append(using, n.GetString_().GetSval())
		}
		if j.IsNatural {
			for _, c := range l.star {
				if slices.Contains(r.star, c) {
					using = append(using, c)
				}
			}
		}
		// USING and NATURAL list the merged columns first.
		out := relCols{star: slices.Clone(using), quals: map[string][]string{}}
		for _, side := range []relCols{l, r} {
			for _, c := range side.star {
				if !slices.Contains(using, c) {
					out.star = append(out.star, c)
				}
			}
			for q, cols := range side.quals {
				out.quals[q] = cols
			}
		}
		if j.Alias != nil {
			if len(j.Alias.Colnames) > 0 {
				return relCols{}, false
			}
			out.quals = map[string][]string{j.Alias.Aliasname: out.star}
		}
		return out, true
	}
	return relCols{}, false
}
