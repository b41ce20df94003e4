package sqlgen

import (
	"strconv"
	"strings"
)

// Shape names one production of the top-level grammar; Pair reports it so
// a failure can be classified without reading the SQL.
type Shape string

// The top-level shapes. The ones after ShapeJoins are those of issue 9.
const (
	ShapePlain          Shape = "plain"
	ShapeGroupBy        Shape = "group-by"
	ShapeJoins          Shape = "joins"
	ShapeNestedScalar   Shape = "nested-scalar"
	ShapeNestedExists   Shape = "nested-exists"
	ShapeNestedIn       Shape = "nested-in"
	ShapeSetOps         Shape = "set-ops"
	ShapeCTEFanout      Shape = "cte-fanout"
	ShapeLongIn         Shape = "long-in"
	ShapeBoolChain      Shape = "bool-chain"
	ShapeRowIn          Shape = "row-in"
	ShapeOrderLimit     Shape = "order-limit-derived"
	ShapeValues         Shape = "values"
	ShapeNestedDistinct Shape = "nested-is-distinct"
)

type shapeFunc func(g *Generator) (q, alt string)

var shapes = []struct {
	name Shape
	f    shapeFunc
}{
	{ShapePlain, func(g *Generator) (string, string) { return g.plain(g.cfg.MaxDepth), "" }},
	{ShapeGroupBy, (*Generator).groupBy},
	{ShapeJoins, (*Generator).joins},
	{ShapeNestedScalar, func(g *Generator) (string, string) { return g.nestedChain(0) }},
	{ShapeNestedExists, func(g *Generator) (string, string) { return g.nestedChain(1) }},
	{ShapeNestedIn, func(g *Generator) (string, string) { return g.nestedChain(2) }},
	{ShapeSetOps, (*Generator).setOps},
	{ShapeCTEFanout, (*Generator).cteFanout},
	{ShapeLongIn, (*Generator).longIn},
	{ShapeBoolChain, (*Generator).boolChain},
	{ShapeRowIn, (*Generator).rowIn},
	{ShapeOrderLimit, (*Generator).orderLimit},
	{ShapeValues, func(g *Generator) (string, string) { q, alt, _ := g.values(); return q, alt }},
	{ShapeNestedDistinct, (*Generator).nestedDistinct},
}

// shape writes one top-level query, a shape-specific rewrite of it (alt,
// "" when the shape has none) and the shape's name.
func (g *Generator) shape() (q, alt string, name Shape) {
	if len(g.tables) == 0 {
		return g.values()
	}
	s := shapes[g.pick(len(shapes))]
	q, alt = s.f(g)
	return q, alt, s.name
}

// Pair is a reference query and a candidate for the judge.
type Pair struct {
	Reference, Candidate string
	Shape                Shape
	// Rewrite says how Candidate was made from Reference: "identical",
	// "shape" (a rewrite the shape knows, e.g. a reordered list, one
	// extra IN item, ORDER BY/LIMIT as MAX), "literal" (one number
	// changed), "wrapped" (SELECT * FROM (reference)) or "unrelated".
	Rewrite string
}

// Pair returns a reference and a perturbed or rewritten candidate. The
// rewrites are not all meaning-preserving; the fuzz targets check that
// the judge answers in time, not what it answers.
func (g *Generator) Pair() Pair {
	g.alias = 0
	q, alt, name := g.shape()
	p := Pair{Reference: q, Candidate: q, Shape: name, Rewrite: "identical"}
	switch g.pick(6) {
	case 1, 2:
		if alt != "" {
			p.Candidate, p.Rewrite = alt, "shape"
		}
	case 3:
		if c, ok := g.bumpNumber(q); ok {
			p.Candidate, p.Rewrite = c, "literal"
		}
	case 4:
		if !strings.Contains(q, "ORDER BY") && !strings.HasPrefix(q, "WITH") {
			p.Candidate, p.Rewrite = "SELECT * FROM ("+q+") AS w", "wrapped"
		}
	case 5:
		p.Candidate, _, _ = g.shape()
		p.Rewrite = "unrelated"
	}
	return p
}

// bumpNumber adds one to a numeric literal of q chosen by the source;
// digits inside identifiers and quoted strings are left alone.
func (g *Generator) bumpNumber(q string) (string, bool) {
	var starts []int
	inStr := false
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			inStr = !inStr
		case inStr:
		case c >= '0' && c <= '9' && (i == 0 || !isIdentByte(q[i-1])):
			starts = append(starts, i)
		}
	}
	if len(starts) == 0 {
		return "", false
	}
	s := starts[g.pick(len(starts))]
	e := s
	for e < len(q) && q[e] >= '0' && q[e] <= '9' {
		e++
	}
	n, err := strconv.Atoi(q[s:e])
	if err != nil {
		return "", false
	}
	return q[:s] + strconv.Itoa(n+1) + q[e:], true
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (g *Generator) groupBy() (string, string) {
	t := g.table()
	a := g.newAlias("t")
	sc := scopeOf(t, a)
	gc := g.anyCol(sc)
	agg := g.aggregate(sc)
	q := "SELECT " + gc.String() + ", " + agg + " FROM " + ident(t.Name) + " AS " + a
	if g.chance(50) {
		q += " WHERE " + g.pred(sc, 1)
	}
	q += " GROUP BY " + gc.String()
	alt := q
	if g.chance(60) {
		h := " HAVING " + agg + " > " + strconv.Itoa(g.pick(5))
		q += h
		alt += h
	}
	// Grouping by position means the same as grouping by the column.
	alt = strings.Replace(alt, " GROUP BY "+gc.String(), " GROUP BY 1", 1)
	return q, alt
}

func (g *Generator) joins() (string, string) {
	from, sc := g.join(g.size(4) + 1)
	c := g.anyCol(sc)
	q := "SELECT " + c.String() + " FROM " + from
	if g.chance(60) {
		q += " WHERE " + g.pred(sc, 1)
	}
	return q, ""
}

// nestedChain writes a subquery chain of depth up to MaxChain: scalar
// comparisons (mode 0), EXISTS (1) or IN (2), each level on a table with
// a numeric column where there is one.
func (g *Generator) nestedChain(mode int) (string, string) {
	depth := g.size(g.cfg.MaxChain)
	t, c := g.tableWith(kNum)
	cn := t.Columns[0].Name
	if c != nil {
		cn = c.Name
	}
	a := g.newAlias("n")
	open := "SELECT " + a + "." + ident(cn) + " FROM " + ident(t.Name) + " AS " + a + " WHERE "
	var b strings.Builder
	b.WriteString(open)
	prev := a
	for i := 0; i < depth; i++ {
		na := g.newAlias("n")
		body := "SELECT " + na + "." + ident(cn) + " FROM " + ident(t.Name) + " AS " + na
		switch mode {
		case 0:
			b.WriteString(prev + "." + ident(cn) + " = (" + body)
		case 1:
			b.WriteString("EXISTS (SELECT 1 FROM " + ident(t.Name) + " AS " + na + " WHERE " + na + "." + ident(cn) + " = " + prev + "." + ident(cn))
			if i+1 < depth {
				b.WriteString(" AND ")
			}
			prev = na
			continue
		default:
			b.WriteString(prev + "." + ident(cn) + " IN (" + body)
		}
		if i+1 < depth {
			b.WriteString(" WHERE ")
		} else if mode == 0 {
			// The innermost level must yield one row for '=' to make sense.
			b.WriteString(" WHERE " + na + "." + ident(cn) + " = " + strconv.Itoa(g.pick(10)))
		}
		prev = na
	}
	b.WriteString(strings.Repeat(")", depth))
	return b.String(), ""
}

var setOpNames = []string{"UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"}

// setOps writes a chain of single-column branches joined by set
// operators, all one operator or mixed. Its alt lists the branches in
// reverse, which is equivalent when the operator is UNION.
func (g *Generator) setOps() (string, string) {
	n := g.size(g.cfg.MaxBranches) + 1
	k := kNum
	if g.chance(30) {
		k = kText
	}
	uniform := g.chance(60)
	op := setOpNames[g.pick(len(setOpNames))]
	branches := make([]string, n)
	ops := make([]string, n-1)
	for i := range branches {
		t, c := g.tableWith(k)
		item := g.literal(k)
		if c != nil {
			item = ident(c.Name)
		}
		b := "SELECT " + item + " FROM " + ident(t.Name)
		if c != nil && k != kOther && g.chance(80) {
			b += " WHERE " + ident(c.Name) + " " + compareOps[g.pick(len(compareOps))] + " " + g.literal(k)
		}
		branches[i] = b
		if i < n-1 {
			ops[i] = op
			if !uniform {
				ops[i] = setOpNames[g.pick(len(setOpNames))]
			}
		}
	}
	join := func(bs []string) string {
		var sb strings.Builder
		for i, b := range bs {
			if i > 0 {
				sb.WriteString(" " + ops[i-1] + " ")
			}
			sb.WriteString(b)
		}
		return sb.String()
	}
	rev := make([]string, n)
	for i, b := range branches {
		rev[n-1-i] = b
	}
	return join(branches), join(rev)
}

// cteFanout writes WITH c0 AS (...), c_i AS (c_{i-1} joined to itself),
// so that inlining without a size bound doubles per CTE.
func (g *Generator) cteFanout() (string, string) {
	n := g.size(g.cfg.MaxCTEs)
	t, c := g.tableWith(kNum)
	cn := t.Columns[0].Name
	if c != nil {
		cn = c.Name
	}
	var b strings.Builder
	b.WriteString("WITH c0 AS (SELECT " + ident(cn) + " AS x FROM " + ident(t.Name) + ")")
	joins := []string{"JOIN", "LEFT JOIN", "JOIN"}
	for i := 1; i < n; i++ {
		p := "c" + strconv.Itoa(i-1)
		b.WriteString(", c" + strconv.Itoa(i) + " AS (SELECT a.x FROM " + p + " AS a " + joins[g.pick(len(joins))] + " " + p + " AS b ON a.x = b.x)")
	}
	last := "c" + strconv.Itoa(n-1)
	q := b.String() + " SELECT x FROM " + last
	return q, b.String() + " SELECT DISTINCT x FROM " + last
}

// longIn writes col [NOT] IN (a long list). Its alt has the list reversed
// plus, sometimes, one extra item.
func (g *Generator) longIn() (string, string) {
	t, c := g.tableWith(kNum)
	if c == nil {
		return g.plain(1), ""
	}
	n := g.size(g.cfg.MaxList)
	items := make([]string, n)
	dense := g.chance(50)
	for i := range items {
		if dense {
			items[i] = strconv.Itoa(i)
		} else {
			items[i] = strconv.Itoa(g.pick(n + 1))
		}
	}
	head := "SELECT " + ident(t.Columns[0].Name) + " FROM " + ident(t.Name) + " WHERE " + ident(c.Name) + g.not() + " IN ("
	rev := make([]string, 0, n+1)
	for i := n - 1; i >= 0; i-- {
		rev = append(rev, items[i])
	}
	if g.chance(50) {
		rev = append(rev, strconv.Itoa(n))
	}
	return head + strings.Join(items, ", ") + ")", head + strings.Join(rev, ", ") + ")"
}

// boolChain writes a long OR chain of equalities or AND chain of
// inequalities, over one column or alternating columns. Its alt is the
// chain reversed.
func (g *Generator) boolChain() (string, string) {
	t := g.table()
	sc := scopeOf(t, "")
	n := g.size(g.cfg.MaxList)
	or := g.chance(60)
	cmp, op := " = ", " OR "
	if !or {
		cmp, op = " <> ", " AND "
	}
	terms := make([]string, n)
	one := g.anyCol(sc)
	same := g.chance(60)
	for i := range terms {
		c := one
		if !same {
			c = g.anyCol(sc)
		}
		lit := strconv.Itoa(i)
		switch c.k {
		case kText:
			lit = "'v" + lit + "'"
		case kOther:
			terms[i] = c.String() + " IS NULL"
			continue
		}
		terms[i] = c.String() + cmp + lit
	}
	head := "SELECT " + ident(t.Columns[0].Name) + " FROM " + ident(t.Name) + " WHERE "
	rev := make([]string, n)
	for i, s := range terms {
		rev[n-1-i] = s
	}
	return head + strings.Join(terms, op), head + strings.Join(rev, op)
}

// rowIn writes (a, b) IN ((1, 2), ...) over two columns of one table.
func (g *Generator) rowIn() (string, string) {
	t := g.table()
	sc := scopeOf(t, "")
	a, b := g.anyCol(sc), g.anyCol(sc)
	n := g.size(g.cfg.MaxList)
	rows := make([]string, n)
	lit := func(k kind, i int) string {
		switch k {
		case kNum:
			return strconv.Itoa(i)
		case kText:
			return "'v" + strconv.Itoa(i) + "'"
		}
		return "NULL"
	}
	for i := range rows {
		rows[i] = "(" + lit(a.k, i) + ", " + lit(b.k, i%7) + ")"
	}
	head := "SELECT " + a.String() + " FROM " + ident(t.Name) + " WHERE (" + a.String() + ", " + b.String() + ")" + g.not() + " IN ("
	rev := make([]string, n)
	for i, r := range rows {
		rev[n-1-i] = r
	}
	return head + strings.Join(rows, ", ") + ")", head + strings.Join(rev, ", ") + ")"
}

// orderLimit writes SELECT a FROM (derived) t ORDER BY a [DESC] LIMIT 1,
// the shape that once made a cyclic column definition; alt is the MAX
// form over the same derived table.
func (g *Generator) orderLimit() (string, string) {
	var derived string
	switch g.pick(3) {
	case 0:
		derived = "(" + g.valuesRows([]kind{kNum}, g.size(4)) + ") AS d(a)"
	case 1:
		t, c := g.tableWith(kNum)
		cn := t.Columns[0].Name
		if c != nil {
			cn = c.Name
		}
		derived = "(SELECT " + ident(cn) + " AS a FROM " + ident(t.Name) + " WHERE " + g.pred(scopeOf(t, ""), 1) + ") AS d"
	default:
		t, c := g.tableWith(kNum)
		cn := t.Columns[0].Name
		if c != nil {
			cn = c.Name
		}
		sc := scopeOf(t, "")
		ops := []string{"UNION", "UNION ALL", "INTERSECT", "EXCEPT"}
		derived = "(SELECT " + ident(cn) + " AS a FROM " + ident(t.Name) + " WHERE " + g.pred(sc, 0) +
			" " + ops[g.pick(len(ops))] + " SELECT " + ident(cn) + " FROM " + ident(t.Name) + " WHERE " + g.pred(sc, 0) + ") AS d"
	}
	dir := g.direction()
	q := "SELECT a FROM " + derived + " ORDER BY a" + dir + " LIMIT 1"
	agg := "MIN"
	if strings.Contains(dir, "DESC") {
		agg = "MAX"
	}
	return q, "SELECT " + agg + "(a) FROM " + derived
}

// values writes a top-level VALUES list or a query over one.
func (g *Generator) values() (string, string, Shape) {
	ks := g.kinds(g.size(3))
	rows := g.size(g.cfg.MaxList)
	if g.chance(40) {
		v := g.valuesRows(ks, rows)
		return v, "SELECT * FROM (" + v + ") AS w", ShapeValues
	}
	from, sc := g.valuesTable(ks, rows)
	q := "SELECT " + g.anyCol(sc).String() + " FROM " + from
	if g.chance(60) {
		q += " WHERE " + g.pred(sc, 1)
	}
	return q, "", ShapeValues
}

// nestedDistinct writes ((c IS DISTINCT FROM x) IS DISTINCT FROM y) ...
// to a depth up to MaxChain.
func (g *Generator) nestedDistinct() (string, string) {
	t := g.table()
	sc := scopeOf(t, "")
	c := g.anyCol(sc)
	depth := g.size(g.cfg.MaxChain)
	e := c.String() + " IS DISTINCT FROM " + g.literal(c.k)
	for i := 1; i < depth; i++ {
		rhs := []string{"TRUE", "FALSE", "NULL", strconv.Itoa(i % 2)}[g.pick(4)]
		neg := ""
		if g.chance(20) {
			neg = "NOT "
		}
		e = "(" + e + ") IS " + neg + "DISTINCT FROM " + rhs
	}
	return "SELECT " + c.String() + " FROM " + ident(t.Name) + " WHERE " + e, ""
}

// SeedBytes returns fuzz input for a ByteSource whose first decision
// selects shape, followed by rest: a way to write seed corpora that name
// the shape they cover and survive reordering of the grammar.
func SeedBytes(shape Shape, rest ...byte) []byte {
	for i, s := range shapes {
		if s.name == shape {
			return append([]byte{byte(i)}, rest...)
		}
	}
	return rest
}

// Seed is one fuzz seed of the structured targets: a schema index (into
// LoadSchemas' list) and the input bytes.
type Seed struct {
	Schema uint8
	Data   []byte
}

// Seeds cover every shape on the example schema (index 0) with small
// sizes, and a few on car_1 (index 2 in name order after the example):
// the seed corpus of both FuzzPlanStructured and FuzzJudgeStructured.
func Seeds() []Seed {
	return []Seed{
		{0, SeedBytes(ShapePlain, 3, 1, 2, 4, 5, 1)},
		{0, SeedBytes(ShapeGroupBy, 1, 2, 3, 40, 2)},
		{0, SeedBytes(ShapeJoins, 2, 1, 3, 4, 5)},
		{0, SeedBytes(ShapeNestedScalar, 3, 2)},
		{0, SeedBytes(ShapeNestedExists, 3, 2)},
		{0, SeedBytes(ShapeNestedIn, 3, 2)},
		{0, SeedBytes(ShapeSetOps, 3, 5, 1)},
		{0, SeedBytes(ShapeCTEFanout, 2, 2)},
		{0, SeedBytes(ShapeLongIn, 1, 4, 6)},
		{0, SeedBytes(ShapeBoolChain, 1, 4, 6)},
		{0, SeedBytes(ShapeRowIn, 1, 4, 6)},
		{0, SeedBytes(ShapeOrderLimit, 2, 1)},
		{0, SeedBytes(ShapeValues, 1, 2, 3)},
		{0, SeedBytes(ShapeNestedDistinct, 1, 2, 3)},
		{2, SeedBytes(ShapeOrderLimit, 2, 3, 1)},
		{2, SeedBytes(ShapeSetOps, 2, 2, 1)},
		{2, SeedBytes(ShapePlain, 5, 3, 2, 1)},
	}
}
