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
// over it that has a star or a NATURAL join is frozen: each star of its
// select lists becomes the columns it stands for now (t.a, t.b, or the
// merged a of a JOIN USING), and each NATURAL join a join USING the
// columns its sides have in common now.
// A view whose columns the loader cannot name is dropped and reported:
// queries over it do not plan, which is no wrong verdict. SQLite expands
// a view's star each time the view is read: nothing is frozen there.

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
		if b.fixNatural(sel) {
			if _, ok := b.selectNames(sel, nil, 0); ok {
				sql, err := pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}}}})
				if err == nil {
					v.ViewSQL = sql
					b.frozen[b.norm(v.Name)] = true
					keep = append(keep, v)
					continue
				}
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

// fixNatural turns each NATURAL join of sel into a join USING the
// columns its sides have in common now: PostgreSQL fixed them when the
// view was created, and a common column added later must not join too.
// False where the loader cannot name a side's columns.
func (b *ddlBuilder) fixNatural(sel *pg.SelectStmt) bool {
	ctes := map[string]*pg.CommonTableExpr{}
	var joins []*pg.JoinExpr
	walkMessages(sel.ProtoReflect(), func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *pg.CommonTableExpr:
			ctes[x.Ctename] = x
		case *pg.JoinExpr:
			if x.IsNatural {
				joins = append(joins, x)
			}
		}
	})
	for _, j := range joins {
		l, ok := b.fromNames(j.Larg, ctes, 0)
		if !ok {
			return false
		}
		r, ok := b.fromNames(j.Rarg, ctes, 0)
		if !ok {
			return false
		}
		j.IsNatural = false
		for _, c := range names(l.star) {
			if slices.Contains(names(r.star), c) {
				j.UsingClause = append(j.UsingClause, pg.MakeStrNode(c))
			}
		}
		if len(j.UsingClause) == 0 {
			// A NATURAL join without common columns joins ON true.
			j.Quals = &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Val: &pg.A_Const_Boolval{Boolval: &pg.Boolean{Boolval: true}}}}}
		}
	}
	return true
}

// colRef is one column a star stands for: qual.name, or name alone for
// the merged column of a JOIN USING (or NATURAL join).
type colRef struct{ qual, name string }

func (c colRef) node() *pg.Node {
	fields := []*pg.Node{pg.MakeStrNode(c.name)}
	if c.qual != "" {
		fields = append([]*pg.Node{pg.MakeStrNode(c.qual)}, fields...)
	}
	return pg.MakeResTargetNodeWithVal(pg.MakeColumnRefNode(fields, -1), -1)
}

func names(refs []colRef) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.name
	}
	return out
}

// relCols is a FROM item's columns as a star expands them, and the
// items a qualified star (q.*) may name inside it.
type relCols struct {
	star  []colRef
	quals map[string][]colRef
}

// maxNameDepth bounds the views and subqueries selectNames follows.
const maxNameDepth = 32

// selectNames names the columns sel returns, as PostgreSQL names them
// (FigureColname), with ctes the common table expressions in scope,
// and writes each star of its select lists (and of those of the
// subqueries and CTEs its FROM reads) as the columns it stands for now;
// false where it cannot tell.
func (b *ddlBuilder) selectNames(sel *pg.SelectStmt, ctes map[string]*pg.CommonTableExpr, depth int) ([]string, bool) {
	if sel == nil || depth > maxNameDepth {
		return nil, false
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
	if sel.Op != pg.SetOperation_SETOP_NONE {
		if _, ok := b.selectNames(sel.Rarg, ctes, depth+1); !ok {
			return nil, false
		}
		return b.selectNames(sel.Larg, ctes, depth+1)
	}
	if len(sel.ValuesLists) > 0 {
		var out []string
		for i := range sel.ValuesLists[0].GetList().GetItems() {
			out = append(out, fmt.Sprintf("column%d", i+1))
		}
		return out, true
	}
	scope := relCols{quals: map[string][]colRef{}}
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
	var targets []*pg.Node
	for _, tn := range sel.TargetList {
		rt := tn.GetResTarget()
		if rt == nil {
			return nil, false
		}
		if cr := rt.Val.GetColumnRef(); rt.Name == "" && cr != nil && len(cr.Fields) > 0 && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			refs := scope.star
			switch len(cr.Fields) {
			case 1:
			case 2:
				var ok bool
				if refs, ok = scope.quals[cr.Fields[0].GetString_().GetSval()]; !ok {
					return nil, false
				}
			default:
				return nil, false
			}
			for _, r := range refs {
				out = append(out, r.name)
				targets = append(targets, r.node())
			}
			continue
		}
		targets = append(targets, tn)
		if rt.Name != "" {
			out = append(out, rt.Name)
			continue
		}
		name, ok := figureColname(rt.Val)
		if !ok {
			return nil, false
		}
		out = append(out, name)
	}
	sel.TargetList = targets
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
		refs := make([]colRef, len(cols))
		for i, c := range cols {
			refs[i] = colRef{qual, c}
		}
		return relCols{star: refs, quals: map[string][]colRef{qual: refs}}
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
			for _, c := range names(l.star) {
				if slices.Contains(names(r.star), c) {
					using = append(using, c)
				}
			}
		}
		// USING and NATURAL list the merged columns first, unqualified.
		out := relCols{quals: map[string][]colRef{}}
		for _, c := range using {
			out.star = append(out.star, colRef{name: c})
		}
		for _, side := range []relCols{l, r} {
			for _, c := range side.star {
				if !slices.Contains(using, c.name) {
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
			return aliased(names(out.star), j.Alias, ""), true
		}
		return out, true
	}
	return relCols{}, false
}
