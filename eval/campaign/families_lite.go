package campaign

import (
	"strconv"
	"strings"
)

// SQLite's families of issue 33: bare columns, tied rows under LIMIT,
// compound columns' affinity, rowid aliases and type names, and forms
// only SQLite accepts.

// famBareMinMax writes a column neither grouped nor aggregated beside
// min()/max() (33.8): SQLite takes it from the row of the last min() or
// max() evaluated anywhere in the query, an unused subquery column's
// included, and from an arbitrary row when there is none.
func (g *gen) famBareMinMax(p *Pair) bool {
	if g.pgs {
		return false
	}
	t := g.table(func(t *mtable) bool {
		return len(t.cols) > 2 && hasCol(func(c mcol) bool { return c.cat.numeric() })(t)
	})
	if t == nil {
		return false
	}
	n := g.column(t, func(c mcol) bool { return c.cat.numeric() })
	b := g.column(t, func(c mcol) bool { return c.name != n.name })
	grp := g.column(t, func(c mcol) bool { return c.name != n.name && c.name != b.name })
	if grp == nil {
		return false
	}
	nc, bc, gc, tbl := ident(n.name), ident(b.name), ident(grp.name), ident(t.name)
	p.Class = "33.8"
	by := " GROUP BY " + gc
	if g.r.IntN(4) == 0 {
		by = "" // one group: the whole table
	}
	sel := func(aggs string) string { return "SELECT " + gc + ", " + bc + ", " + aggs + " FROM " + tbl + by }
	switch g.r.IntN(5) {
	case 0:
		p.Reference, p.Candidate, p.Mutation = sel("max("+nc+")"), sel("max("+nc+")")+" ORDER BY min("+nc+")", "order-by-other-aggregate"
	case 1:
		p.Reference, p.Candidate, p.Mutation = sel("max("+nc+")"), sel("max("+nc+")")+" ORDER BY max("+nc+")", "order-by-same-aggregate"
	case 2:
		inner := func(agg string) string {
			return "SELECT " + gc + ", " + bc + " FROM (SELECT " + gc + ", " + bc + ", " + agg + "(" + nc + ") AS m FROM " + tbl + by + ") AS s"
		}
		p.Reference, p.Candidate, p.Mutation = inner("max"), inner("min"), "unused-subquery-aggregate"
	case 3:
		p.Reference, p.Candidate, p.Mutation = sel("max("+nc+")"), sel("max("+nc+")")+" HAVING min("+nc+") IS NOT NULL OR count(*) > 0", "having-aggregate"
	default:
		p.Reference, p.Candidate, p.Mutation = sel("count(*)"), sel("count(*)")+" ORDER BY count(*)", "no-min-max"
	}
	return true
}

// famJoinSwapLimit swaps a join's tables under ORDER BY … LIMIT (33.9):
// which of the rows tied at the cut come back follows the loop order,
// which SQLite's planner picks for a JOIN and the text fixes for a CROSS
// JOIN. The sort key is a parent column that two parents may share, so
// that ties span join partners. The pair is compared strictly (the rows
// kept must be the same), as SQLite's choice differs between the plans;
// ordering by both keys too makes the order total.
func (g *gen) famJoinSwapLimit(p *Pair) bool {
	if g.pgs {
		return false
	}
	t := g.table(func(t *mtable) bool { return len(t.fks) > 0 && len(t.pk) == 1 })
	if t == nil {
		return false
	}
	fk := t.fks[g.r.IntN(len(t.fks))]
	par := g.m.table(fk.ref)
	if par == nil || len(fk.cols) != 1 || len(par.pk) != 1 {
		return false
	}
	pc := fk.refCols[0]
	if pc == "" {
		pc = par.pk[0]
	}
	key := g.column(par, func(c mcol) bool { return comparable(c) && c.name != pc && !inKey(par, c.name) })
	if key == nil {
		key = g.column(par, comparable)
	}
	if key == nil {
		return false
	}
	on := " ON " + q("a", fk.cols[0]) + " = " + q("b", pc)
	sel := "SELECT " + q("a", t.pk[0]) + ", " + q("b", key.name)
	order := " ORDER BY " + q("b", key.name)
	p.Class = "33.9"
	p.Mutation = "ties"
	if g.r.IntN(4) == 0 {
		order += ", " + q("a", t.pk[0])
		p.Mutation = "total-order"
	}
	lim := " LIMIT " + strconv.Itoa(1+g.r.IntN(2))
	join := " JOIN "
	if g.r.IntN(3) != 0 {
		// the loop order as written (the planner takes CROSS JOIN with a
		// WHERE, not with ON)
		join = " CROSS JOIN "
		on = strings.Replace(on, " ON ", " WHERE ", 1)
		p.Mutation += "/cross-join"
	}
	p.Reference = sel + " FROM " + from(t, "a") + join + from(par, "b") + on + order + lim
	p.Candidate = sel + " FROM " + from(par, "b") + join + from(t, "a") + on + order + lim
	return true
}

// famCompoundAffinity compares a compound subquery's column with a
// number spelled as an integer, a real and a string (33.10): the column
// has the arms' affinity where they agree, and SQLite's versions read it
// apart where they do not.
func (g *gen) famCompoundAffinity(p *Pair) bool {
	if g.pgs {
		return false
	}
	t1 := g.table(hasCol(func(c mcol) bool { return c.cat != catJSON }))
	t2 := g.table(nil)
	if t1 == nil || t2 == nil {
		return false
	}
	c1 := g.column(t1, func(c mcol) bool { return c.cat.numeric() || c.cat == catAny || c.cat == catText })
	c2 := g.column(t2, func(c mcol) bool { return c.cat.numeric() || c.cat == catAny || c.cat == catText })
	if c1 == nil || c2 == nil {
		return false
	}
	op := []string{"UNION", "UNION ALL", "EXCEPT", "INTERSECT"}[g.r.IntN(4)]
	arm1 := "SELECT " + ident(c1.name) + " AS x FROM " + ident(t1.name)
	arm2 := "SELECT " + ident(c2.name) + " FROM " + ident(t2.name)
	comp := arm1 + " " + op + " " + arm2
	if g.r.IntN(3) == 0 {
		comp = "SELECT " + ident(c2.name) + " AS x FROM " + ident(t2.name) + " " + op + " SELECT " + ident(c1.name) + " FROM " + ident(t1.name)
	}
	n := []string{"1", "2", "5", "10", "3"}[g.r.IntN(5)]
	spell := []string{n, n + ".0", "'" + n + "'"}
	i := g.r.IntN(3)
	j := (i + 1 + g.r.IntN(2)) % 3
	p.Class = "33.10"
	read := func(cond string) string { return "SELECT x FROM (" + comp + ") AS u WHERE x " + cond }
	if g.r.IntN(3) == 0 {
		read = func(cond string) string { return "WITH u(x) AS (" + comp + ") SELECT x FROM u WHERE x " + cond }
	}
	p.Reference, p.Candidate = read("= "+spell[i]), read("= "+spell[j])
	p.Mutation = strings.ToLower(strings.ReplaceAll(op, " ", "-")) + "/" + string(c1.cat) + "-" + string(c2.cat) + "/" + strconv.Itoa(i) + "-" + strconv.Itoa(j)
	return true
}

// famDeclaredType asks what a column's declared type makes of a number
// spelled as an integer, a real or a string (33.12: SQLite's affinity
// rules, STRING is NUMERIC, FLOATING POINT is INTEGER), and, for a
// single-column INTEGER-named primary key, what only a rowid alias
// guarantees (33.11: INTEGER(11), UNSIGNED INTEGER or a WITHOUT ROWID
// table's key may hold 5.5 or NULL).
func (g *gen) famDeclaredType(p *Pair) bool {
	if g.pgs {
		return false
	}
	t := g.table(nil)
	if t == nil {
		return false
	}
	c := g.column(t, func(c mcol) bool { return c.cat != catJSON })
	col, tbl := ident(c.name), ident(t.name)
	isKey := len(t.pk) == 1 && strings.EqualFold(t.pk[0], c.name)
	n := strconv.Itoa(1 + g.r.IntN(5))
	sel := "SELECT " + strings.Join(g.items(t, "", col), ", ") + " FROM " + tbl + " WHERE "
	p.Class = "33.12"
	if isKey && strings.Contains(strings.ToUpper(c.sqlType), "INT") {
		p.Class = "33.11"
	}
	p.Mutation = strings.ToLower(strings.ReplaceAll(c.sqlType, " ", "_"))
	if p.Mutation == "" {
		p.Mutation = "typeless"
	}
	switch g.r.IntN(6) {
	case 0:
		p.Reference, p.Candidate = sel+col+" = "+n, sel+col+" = '"+n+"'"
		p.Mutation += "/int-text"
	case 1:
		p.Reference, p.Candidate = sel+col+" = "+n, sel+col+" = "+n+".0"
		p.Mutation += "/int-real"
	case 2:
		p.Reference, p.Candidate = sel+col+" > "+n, sel+col+" >= "+strconv.Itoa(1+atoi(n))
		p.Mutation += "/gt-ge-next"
	case 3:
		p.Reference, p.Candidate = sel+col+" IS NULL", sel+"FALSE"
		p.Mutation += "/is-null"
	case 4:
		p.Reference, p.Candidate = "SELECT "+col+" FROM "+tbl, "SELECT CAST("+col+" AS INTEGER) FROM "+tbl
		p.Mutation += "/cast-integer"
	default:
		p.Reference, p.Candidate = "SELECT typeof("+col+") FROM "+tbl, "SELECT typeof("+col+" + 0) FROM "+tbl
		p.Mutation += "/typeof-plus-zero"
	}
	return true
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// famSQLiteForms writes forms SQLite accepts and PostgreSQL would not
// (33.13): a result alias in WHERE, x IS v, [bracketed] names, NATURAL
// LEFT JOIN, a comma list before an outer join, DISTINCT ordered by an
// unreturned column. Judging them invalid is wrong.
func (g *gen) famSQLiteForms(p *Pair) bool {
	if g.pgs {
		return false
	}
	t := g.table(func(t *mtable) bool { return len(t.pk) == 1 && len(t.cols) > 1 })
	if t == nil {
		return false
	}
	k := ident(t.pk[0])
	c := g.column(t, func(c mcol) bool { return c.name != t.pk[0] && comparable(c) })
	if c == nil {
		return false
	}
	col, tbl := ident(c.name), ident(t.name)
	lit := g.lit(*c)
	p.Class = "33.13"
	switch g.r.IntN(7) {
	case 0:
		p.Reference = "SELECT " + col + " AS zz FROM " + tbl + " WHERE " + col + " > " + lit
		p.Candidate = "SELECT " + col + " AS zz FROM " + tbl + " WHERE zz > " + lit
		p.Mutation = "alias-in-where"
	case 1:
		p.Reference = "SELECT " + k + " FROM " + tbl + " WHERE " + col + " = " + lit
		p.Candidate = "SELECT " + k + " FROM " + tbl + " WHERE " + col + " IS " + lit
		p.Mutation = "is-value"
	case 2:
		p.Reference = "SELECT " + k + " FROM " + tbl + " WHERE " + col + " <> " + lit
		p.Candidate = "SELECT " + k + " FROM " + tbl + " WHERE " + col + " IS NOT " + lit
		p.Mutation = "is-not-value"
	case 3:
		p.Candidate = "SELECT [" + c.name + "], " + k + " FROM [" + t.name + "]"
		p.Reference = "SELECT " + col + ", " + k + " FROM " + tbl
		p.Mutation = "brackets"
	case 4:
		a, b, _ := g.sharedColumn()
		if a == nil {
			return false
		}
		names, ok := sharedNames(a, b)
		if !ok {
			return false
		}
		on := make([]string, len(names))
		for i, n := range names {
			on[i] = "a." + ident(n) + " = b." + ident(n)
		}
		out := "a." + ident(names[0])
		if bc := g.column(b, nil); bc != nil {
			out += ", b." + ident(bc.name)
		}
		p.Reference = "SELECT " + out + " FROM " + from(a, "a") + " LEFT JOIN " + from(b, "b") + " ON " + strings.Join(on, " AND ")
		p.Candidate = "SELECT " + out + " FROM " + from(a, "a") + " NATURAL LEFT JOIN " + from(b, "b")
		p.Mutation = "natural-left-join"
	case 5:
		p.Reference = "SELECT x." + k + ", z." + col + " FROM " + tbl + " AS x CROSS JOIN " + tbl + " AS y LEFT JOIN " + tbl + " AS z ON x." + k + " = z." + col
		p.Candidate = "SELECT x." + k + ", z." + col + " FROM " + tbl + " AS x, " + tbl + " AS y LEFT JOIN " + tbl + " AS z ON x." + k + " = z." + col
		p.Mutation = "comma-then-outer-join"
	default:
		p.Reference = "SELECT DISTINCT " + col + " FROM " + tbl
		p.Candidate = "SELECT DISTINCT " + col + " FROM " + tbl + " ORDER BY " + k
		p.Mutation = "distinct-order-by-unreturned"
	}
	return true
}
