package sqlgen

import (
	"strconv"
	"strings"
)

// literal writes a constant of kind k; kOther has none but NULL.
func (g *Generator) literal(k kind) string {
	if g.cfg.Params > 0 && g.pick(4) == 0 {
		return "$" + strconv.Itoa(1+g.pick(g.cfg.Params))
	}
	switch k {
	case kNum:
		switch g.pick(8) {
		case 0:
			return "-" + strconv.Itoa(g.pick(10))
		case 1:
			return strconv.Itoa(g.pick(100)) + ".5"
		}
		return strconv.Itoa(g.pick(100))
	case kText:
		return "'v" + strconv.Itoa(g.pick(20)) + "'"
	}
	return "NULL"
}

// expr writes a value of kind k over sc.
func (g *Generator) expr(sc []col, k kind, depth int) string {
	c, ok := g.colOf(sc, k)
	n := 3
	if depth > 0 {
		n = 7
	}
	switch g.pick(n) {
	case 0, 1:
		if ok {
			return c.String()
		}
	case 2:
		return g.literal(k)
	case 3:
		if k == kNum && ok {
			ops := []string{"+", "-", "*"}
			return "(" + c.String() + " " + ops[g.pick(len(ops))] + " " + g.expr(sc, k, depth-1) + ")"
		}
	case 4:
		return "CASE WHEN " + g.pred(sc, depth-1) + " THEN " + g.expr(sc, k, depth-1) + " ELSE " + g.expr(sc, k, depth-1) + " END"
	case 5:
		return "COALESCE(" + g.expr(sc, k, depth-1) + ", " + g.literal(k) + ")"
	case 6:
		return "(" + g.subquery(k, depth-1, sc, true) + ")"
	}
	if ok {
		return c.String()
	}
	return g.literal(k)
}

var compareOps = []string{"=", "<>", "<", "<=", ">", ">="}

// pred writes a boolean condition over sc.
func (g *Generator) pred(sc []col, depth int) string {
	if len(sc) == 0 {
		return "TRUE"
	}
	n := 6
	if depth > 0 {
		n = 13
	}
	c := g.anyCol(sc)
	switch g.pick(n) {
	case 0:
		if c.k == kOther {
			return c.String() + " IS NOT NULL"
		}
		return c.String() + " " + compareOps[g.pick(len(compareOps))] + " " + g.literal(c.k)
	case 1:
		if o, ok := g.colOf(sc, c.k); ok && c.k != kOther {
			return c.String() + " " + compareOps[g.pick(len(compareOps))] + " " + o.String()
		}
		return c.String() + " IS NULL"
	case 2:
		if g.chance(50) {
			return c.String() + " IS NULL"
		}
		return c.String() + " IS NOT NULL"
	case 3:
		if c.k == kOther {
			return c.String() + " IS NULL"
		}
		return c.String() + g.not() + " IN (" + g.literals(c.k, g.size(6)) + ")"
	case 4:
		if c.k == kOther {
			return "TRUE"
		}
		return c.String() + g.not() + " BETWEEN " + g.literal(c.k) + " AND " + g.literal(c.k)
	case 5:
		if c.k == kText {
			return c.String() + g.not() + " LIKE 'v%'"
		}
		return c.String() + " IS DISTINCT FROM " + g.literal(c.k)
	case 6:
		return "NOT (" + g.pred(sc, depth-1) + ")"
	case 7, 8:
		op := " AND "
		if g.chance(50) {
			op = " OR "
		}
		return "(" + g.pred(sc, depth-1) + op + g.pred(sc, depth-1) + ")"
	case 9:
		return strings.TrimPrefix(g.not()+" ", " ") + "EXISTS (" + g.correlated(sc, depth-1) + ")"
	case 10:
		if c.k == kOther {
			return c.String() + " IS NULL"
		}
		return c.String() + g.not() + " IN (" + g.subquery(c.k, depth-1, sc, false) + ")"
	case 11:
		if c.k == kOther {
			return c.String() + " IS NULL"
		}
		return c.String() + " " + compareOps[g.pick(len(compareOps))] + " (" + g.subquery(c.k, depth-1, sc, true) + ")"
	default:
		return c.String() + " IS NOT DISTINCT FROM " + g.expr(sc, c.k, depth-1)
	}
}

func (g *Generator) not() string {
	if g.chance(25) {
		return " NOT"
	}
	return ""
}

func (g *Generator) literals(k kind, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(g.literal(k))
	}
	return b.String()
}

// subquery writes a one-column SELECT of kind k, possibly correlated with
// outer; scalar asks for an aggregate so it yields at most one row.
func (g *Generator) subquery(k kind, depth int, outer []col, scalar bool) string {
	t, c := g.tableWith(k)
	if t == nil {
		return "SELECT " + g.literal(k)
	}
	a := g.newAlias("s")
	sc := scopeOf(t, a)
	item := g.literal(k)
	if c != nil {
		item = a + "." + ident(c.Name)
	}
	if scalar {
		aggs := []string{"MAX", "MIN"}
		if k == kNum {
			aggs = append(aggs, "SUM", "AVG")
		}
		item = aggs[g.pick(len(aggs))] + "(" + item + ")"
	}
	q := "SELECT " + item + " FROM " + ident(t.Name) + " AS " + a
	if g.chance(70) {
		q += " WHERE " + g.pred(append(sc, g.outer(outer)...), depth)
	}
	return q
}

// outer returns the outer columns a subquery may see: sometimes none, so
// that uncorrelated and correlated subqueries both appear.
func (g *Generator) outer(sc []col) []col {
	if g.chance(50) {
		return nil
	}
	return sc
}

// correlated writes an EXISTS body joined to outer when it can be.
func (g *Generator) correlated(outer []col, depth int) string {
	t := g.table()
	if t == nil {
		return "SELECT 1"
	}
	a := g.newAlias("e")
	sc := scopeOf(t, a)
	q := "SELECT 1 FROM " + ident(t.Name) + " AS " + a
	var conds []string
	if len(outer) > 0 {
		o := g.anyCol(outer)
		if c, ok := g.colOf(sc, o.k); ok && o.k != kOther {
			conds = append(conds, c.String()+" = "+o.String())
		}
	}
	if g.chance(60) {
		conds = append(conds, g.pred(sc, depth))
	}
	if len(conds) > 0 {
		q += " WHERE " + strings.Join(conds, " AND ")
	}
	return q
}
