package sqlgen

import (
	"strconv"
	"strings"
)

// from writes a FROM clause and returns the columns it brings in scope.
func (g *Generator) from(depth int) (string, []col) {
	t := g.table()
	if t == nil {
		return g.valuesTable([]kind{kNum}, 2)
	}
	n := 1
	if depth > 0 {
		n = 6
	}
	switch g.pick(n) {
	case 1, 2:
		return g.join(g.size(3) + 1)
	case 3:
		ks := g.kinds(g.size(3))
		a := g.newAlias("d")
		inner := g.selectOf(ks, depth-1)
		return "(" + inner + ") AS " + a, namedScope(a, ks)
	case 4:
		return g.valuesTable(g.kinds(g.size(3)), g.size(5))
	}
	a := g.newAlias("t")
	return ident(t.Name) + " AS " + a, scopeOf(t, a)
}

var joinKinds = []string{"JOIN", "INNER JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "LEFT OUTER JOIN", "CROSS JOIN"}

// join writes n base tables joined with random join kinds, each ON a
// comparison of like columns where one exists.
func (g *Generator) join(n int) (string, []col) {
	t := g.table()
	a := g.newAlias("j")
	sql := ident(t.Name) + " AS " + a
	sc := scopeOf(t, a)
	for i := 1; i < n; i++ {
		t2 := g.table()
		a2 := g.newAlias("j")
		sc2 := scopeOf(t2, a2)
		jk := joinKinds[g.pick(len(joinKinds))]
		sql += " " + jk + " " + ident(t2.Name) + " AS " + a2
		if jk != "CROSS JOIN" {
			on := "TRUE"
			r := g.anyCol(sc2)
			if l, ok := g.colOf(sc, r.k); ok && r.k != kOther {
				on = l.String() + " = " + r.String()
			}
			sql += " ON " + on
		}
		sc = append(sc, sc2...)
	}
	return sql, sc
}

// kinds picks n column kinds that the schema can supply.
func (g *Generator) kinds(n int) []kind {
	ks := make([]kind, n)
	for i := range ks {
		if g.chance(70) {
			ks[i] = kNum
		} else {
			ks[i] = kText
		}
	}
	return ks
}

func namedScope(alias string, ks []kind) []col {
	sc := make([]col, len(ks))
	for i, k := range ks {
		sc[i] = col{qual: alias, name: "c" + strconv.Itoa(i), k: k}
	}
	return sc
}

// valuesTable writes a VALUES derived table with columns c0..cn.
func (g *Generator) valuesTable(ks []kind, rows int) (string, []col) {
	a := g.newAlias("v")
	names := make([]string, len(ks))
	for i := range ks {
		names[i] = "c" + strconv.Itoa(i)
	}
	return "(" + g.valuesRows(ks, rows) + ") AS " + a + "(" + strings.Join(names, ", ") + ")", namedScope(a, ks)
}

func (g *Generator) valuesRows(ks []kind, rows int) string {
	var b strings.Builder
	b.WriteString("VALUES ")
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for i, k := range ks {
			if i > 0 {
				b.WriteString(", ")
			}
			if g.chance(10) {
				b.WriteString("NULL")
			} else {
				b.WriteString(g.literal(k))
			}
		}
		b.WriteByte(')')
	}
	return b.String()
}

// selectOf writes a SELECT whose items have kinds ks, named c0..cn.
func (g *Generator) selectOf(ks []kind, depth int) string {
	from, sc := g.from(depth)
	items := make([]string, len(ks))
	for i, k := range ks {
		items[i] = g.expr(sc, k, depth) + " AS c" + strconv.Itoa(i)
	}
	q := "SELECT " + g.distinct() + strings.Join(items, ", ") + " FROM " + from
	if g.chance(60) {
		q += " WHERE " + g.pred(sc, depth)
	}
	return q
}

func (g *Generator) distinct() string {
	if g.chance(20) {
		return "DISTINCT "
	}
	return ""
}

// plain writes a general query: joins, derived tables, predicates with
// subqueries, grouping, ordering and limits.
func (g *Generator) plain(depth int) string {
	from, sc := g.from(depth)
	var b strings.Builder
	b.WriteString("SELECT ")
	grouped := g.chance(30)
	var order []string
	if grouped {
		gc := g.anyCol(sc)
		b.WriteString(gc.String() + ", " + g.aggregate(sc))
		b.WriteString(" FROM " + from)
		if g.chance(50) {
			b.WriteString(" WHERE " + g.pred(sc, depth))
		}
		b.WriteString(" GROUP BY " + gc.String())
		if g.chance(50) {
			b.WriteString(" HAVING " + g.aggregate(sc) + " " + compareOps[g.pick(len(compareOps))] + " " + strconv.Itoa(g.pick(10)))
		}
		order = []string{"1", "2"}
	} else {
		if g.chance(10) {
			b.WriteString("* FROM " + from)
			order = []string{"1"}
		} else {
			b.WriteString(g.distinct())
			n := g.size(3)
			for i := 0; i < n; i++ {
				if i > 0 {
					b.WriteString(", ")
				}
				c := g.anyCol(sc)
				e := g.expr(sc, c.k, depth)
				b.WriteString(e)
				order = append(order, strconv.Itoa(i+1))
			}
			b.WriteString(" FROM " + from)
		}
		if g.chance(70) {
			b.WriteString(" WHERE " + g.pred(sc, depth))
		}
	}
	if g.chance(30) {
		b.WriteString(" ORDER BY " + order[g.pick(len(order))] + g.direction())
		if g.chance(60) {
			b.WriteString(" LIMIT " + strconv.Itoa(g.pick(5)+1))
		}
	}
	return b.String()
}

func (g *Generator) aggregate(sc []col) string {
	if g.chance(30) {
		return "COUNT(*)"
	}
	c := g.anyCol(sc)
	aggs := []string{"COUNT", "MAX", "MIN"}
	if c.k == kNum {
		aggs = append(aggs, "SUM", "AVG")
	}
	d := ""
	if g.chance(15) {
		d = "DISTINCT "
	}
	return aggs[g.pick(len(aggs))] + "(" + d + c.String() + ")"
}

func (g *Generator) direction() string {
	switch g.pick(6) {
	case 1:
		return " DESC"
	case 2:
		return " ASC"
	case 3:
		return " DESC NULLS LAST"
	case 4:
		return " NULLS FIRST"
	}
	return ""
}
