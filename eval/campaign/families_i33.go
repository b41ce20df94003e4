package campaign

import (
	"regexp"
	"strconv"
	"strings"
)

// The families of issue 33 (round 3 of the soundness hunt): forms the
// earlier families never wrote. Each pair's Class names the cause
// ("33.1" … "33.14"; "33.E" the evidence rule for not_equivalent). Most
// write a variant the engine shows equal and one it shows different, so
// that a wrong proof and a wrong refutation can both occur.

// famWindowFilter puts a FILTER on a window aggregate (33.1): dropping it
// changes the result, moving it into a CASE does not.
func (g *gen) famWindowFilter(p *Pair) bool {
	t := g.table(func(t *mtable) bool { return len(t.pk) == 1 && hasCol(func(c mcol) bool { return c.cat.numeric() })(t) })
	if t == nil {
		return false
	}
	c := g.column(t, func(c mcol) bool { return c.cat.numeric() })
	part := g.column(t, func(c mcol) bool { return comparable(c) && c.cat != catJSONB })
	if part == nil {
		return false
	}
	k, col := ident(t.pk[0]), ident(c.name)
	cond := g.pred(t, "")
	agg := []string{"sum", "count", "max", "min"}[g.r.IntN(4)]
	over := " OVER (PARTITION BY " + ident(part.name) + ")"
	if g.r.IntN(3) == 0 {
		over = " OVER (ORDER BY " + k + ")"
	}
	base := "SELECT " + k + ", %s FROM " + ident(t.name)
	p.Class = "33.1"
	p.Reference = strings.Replace(base, "%s", agg+"("+col+") FILTER (WHERE "+cond+")"+over, 1)
	switch g.r.IntN(3) {
	case 0:
		p.Candidate = strings.Replace(base, "%s", agg+"("+col+")"+over, 1)
		p.Mutation = "filter-dropped"
	case 1:
		p.Candidate = strings.Replace(base, "%s", agg+"(CASE WHEN "+cond+" THEN "+col+" END)"+over, 1)
		p.Mutation = "filter-as-case"
	default:
		p.Candidate = strings.Replace(base, "%s", agg+"("+col+") FILTER (WHERE NOT ("+cond+"))"+over, 1)
		p.Mutation = "filter-negated"
	}
	return true
}

// famRowNull writes row-valued IS [NOT] NULL (33.2): ROW(a, b) IS NOT
// NULL holds only when every field is not NULL, so it is not NOT (ROW(a,
// b) IS NULL).
func (g *gen) famRowNull(p *Pair) bool {
	if !g.pgs {
		return false
	}
	t := g.table(func(t *mtable) bool { return len(t.cols) > 2 && len(t.pk) == 1 })
	if t == nil {
		return false
	}
	a := g.column(t, func(c mcol) bool { return c.name != t.pk[0] })
	b := g.column(t, func(c mcol) bool { return c.name != t.pk[0] && c.name != a.name })
	if b == nil {
		return false
	}
	x, y := ident(a.name), ident(b.name)
	row := "ROW(" + x + ", " + y + ")"
	if g.r.IntN(2) == 0 {
		row = "(" + x + ", " + y + ")"
	}
	base := "SELECT " + ident(t.pk[0]) + " FROM " + ident(t.name) + " WHERE "
	p.Class = "33.2"
	type v struct{ ref, cand, name string }
	vs := []v{
		{row + " IS NOT NULL", "NOT (" + row + " IS NULL)", "not-null-vs-not-is-null"},
		{row + " IS NOT NULL", x + " IS NOT NULL AND " + y + " IS NOT NULL", "not-null-fields"},
		{row + " IS NULL", x + " IS NULL AND " + y + " IS NULL", "null-fields"},
		{row + " IS NULL", "NOT (" + row + " IS NOT NULL)", "null-vs-not-is-not-null"},
		{"NOT (" + row + " IS NULL)", x + " IS NOT NULL OR " + y + " IS NOT NULL", "not-is-null-fields"},
	}
	pick := vs[g.r.IntN(len(vs))]
	p.Reference, p.Candidate, p.Mutation = base+pick.ref, base+pick.cand, pick.name
	if g.r.IntN(3) == 0 {
		// in the select list: NULL rows are kept, the value differs
		sel := "SELECT " + ident(t.pk[0]) + ", "
		p.Reference = sel + pick.ref + " FROM " + ident(t.name)
		p.Candidate = sel + pick.cand + " FROM " + ident(t.name)
		p.Mutation += "/output"
	}
	return true
}

// sharedColumn finds two different tables with a column of one name and
// a comparable category, for USING and NATURAL.
func (g *gen) sharedColumn() (*mtable, *mtable, string) {
	type cand struct {
		a, b *mtable
		col  string
	}
	var cs []cand
	for _, a := range g.m.tables {
		for _, b := range g.m.tables {
			if a == b || a.partitioned || b.partitioned {
				continue
			}
			for _, c := range a.cols {
				d := b.col(c.name)
				if d != nil && joinable(c, *d) {
					cs = append(cs, cand{a, b, c.name})
				}
			}
		}
	}
	if len(cs) == 0 {
		return nil, nil, ""
	}
	c := cs[g.r.IntN(len(cs))]
	return c.a, c.b, c.col
}

func joinable(c, d mcol) bool {
	return comparable(c) && comparable(d) && c.cat != catJSONB && (c.cat == d.cat || c.cat.numeric() && d.cat.numeric())
}

// sharedNames are the column names a and b both have, all joinable
// (NATURAL joins on every one); ok is false when one is not.
func sharedNames(a, b *mtable) (names []string, ok bool) {
	for _, c := range a.cols {
		if d := b.col(c.name); d != nil {
			if !joinable(c, *d) {
				return nil, false
			}
			names = append(names, c.name)
		}
	}
	return names, len(names) > 0
}

// famStarJoin writes SELECT * over JOIN … USING and NATURAL JOIN (33.3):
// PostgreSQL lists the merged columns first, then each side's others;
// SQLite lists the left table's columns, then the right's others. The
// candidate lists the columns explicitly in one order or the other.
func (g *gen) famStarJoin(p *Pair) bool {
	a, b, col := g.sharedColumn()
	if a == nil {
		return false
	}
	merged := []string{col}
	join := " JOIN "
	kinds := []string{"inner", "left"}
	if g.pgs {
		kinds = append(kinds, "right", "full")
	}
	kind := kinds[g.r.IntN(len(kinds))]
	switch kind {
	case "left":
		join = " LEFT JOIN "
	case "right":
		join = " RIGHT JOIN "
	case "full":
		join = " FULL JOIN "
	}
	using := " USING (" + ident(col) + ")"
	natural := false
	if names, ok := sharedNames(a, b); ok && g.r.IntN(3) == 0 {
		merged, natural, using = names, true, ""
		join = " NATURAL" + join
	}
	isMerged := func(n string) bool {
		for _, m := range merged {
			if strings.EqualFold(m, n) {
				return true
			}
		}
		return false
	}
	mergedExpr := func(n string) string {
		switch kind {
		case "right":
			return "b." + ident(n)
		case "full":
			return "COALESCE(a." + ident(n) + ", b." + ident(n) + ") AS " + ident(n)
		}
		return "a." + ident(n)
	}
	var first, tableOrder []string
	for _, m := range merged {
		first = append(first, mergedExpr(m))
	}
	for _, c := range a.cols {
		if isMerged(c.name) {
			tableOrder = append(tableOrder, mergedExpr(c.name))
		} else {
			first = append(first, "a."+ident(c.name))
			tableOrder = append(tableOrder, "a."+ident(c.name))
		}
	}
	for _, c := range b.cols {
		if !isMerged(c.name) {
			first = append(first, "b."+ident(c.name))
			tableOrder = append(tableOrder, "b."+ident(c.name))
		}
	}
	fromStar := " FROM " + from(a, "a") + join + from(b, "b") + using
	on := make([]string, len(merged))
	for i, m := range merged {
		on[i] = "a." + ident(m) + " = b." + ident(m)
	}
	fromOn := " FROM " + from(a, "a") + strings.Replace(join, " NATURAL", "", 1) + from(b, "b") + " ON " + strings.Join(on, " AND ")
	p.Class = "33.3"
	p.Reference = "SELECT *" + fromStar
	if g.r.IntN(2) == 0 {
		p.Candidate = "SELECT " + strings.Join(first, ", ") + fromOn
		p.Mutation = kind + "/merged-first"
	} else {
		p.Candidate = "SELECT " + strings.Join(tableOrder, ", ") + fromOn
		p.Mutation = kind + "/table-order"
	}
	if natural {
		p.Mutation = "natural-" + p.Mutation
	}
	return true
}

// typedSpellings are values of PostgreSQL types written two ways: same
// says whether both are one value (33.4).
var typedSpellings = map[string][]struct {
	a, b string
	same bool
}{
	"date":                        {{"2020-01-01", "2020-1-1", true}, {"2020-01-01", "Jan 1, 2020", true}, {"1970-01-01", "epoch", true}, {"2020-01-01", "2020-01-02", false}},
	"time without time zone":      {{"10:00", "10:00:00", true}, {"10:00:00", "10:00:00.000", true}, {"10:00", "10:01", false}},
	"timestamp without time zone": {{"2020-01-01 00:00", "2020-01-01", true}, {"2020-01-01 10:00:00", "2020-01-01T10:00", true}, {"2020-01-01 10:00", "2020-01-01 10:00:01", false}},
	"uuid": {{"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", true}, {"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc999c0b4ef8bb6d6bb9bd380a11", true},
		{"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", true}, {"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12", false}},
	"bytea":     {{`\x6162`, "ab", true}, {`\x6162`, `\141\142`, true}, {`\x6162`, `\x6163`, false}},
	"int4range": {{"[1,3)", "[1,2]", true}, {"[1,3)", "(0,3)", true}, {"empty", "[1,1)", true}, {"[1,3)", "[1,3]", false}},
	"inet":      {{"10.0.0.1", "10.0.0.1/32", true}, {"10.0.0.1", "10.0.0.2", false}, {"10.0.0.1", "10.0.0.1/24", false}},
}

// typedPools are the values the random row generator writes into such
// columns: every spelling above, so that rows meet the queries' values.
var typedPools = func() map[string][]string {
	out := map[string][]string{}
	for typ, ss := range typedSpellings {
		for _, s := range ss {
			out[typ] = append(out[typ], "'"+s.a+"'", "'"+s.b+"'")
		}
	}
	return out
}()

// famTypedLiteral compares a typed column with one value spelled two
// ways (33.4): equal, contradictory and <> conditions.
func (g *gen) famTypedLiteral(p *Pair) bool {
	if !g.pgs {
		return false
	}
	t := g.table(hasCol(func(c mcol) bool { return len(typedSpellings[c.sqlType]) > 0 }))
	if t == nil {
		return false
	}
	c := g.column(t, func(c mcol) bool { return len(typedSpellings[c.sqlType]) > 0 })
	ss := typedSpellings[c.sqlType]
	s := ss[g.r.IntN(len(ss))]
	lit := func(v string) string {
		l := "'" + v + "'"
		if g.r.IntN(2) == 0 {
			typ := c.sqlType
			switch typ {
			case "time without time zone":
				typ = "time"
			case "timestamp without time zone":
				typ = "timestamp"
			}
			l = typ + " " + l
		}
		return l
	}
	col := ident(c.name)
	base := "SELECT " + strings.Join(g.items(t, "", col), ", ") + " FROM " + ident(t.name) + " WHERE "
	p.Class = "33.4"
	p.Mutation = strings.Fields(c.sqlType)[0] + "/" + map[bool]string{true: "same", false: "other"}[s.same]
	switch g.r.IntN(4) {
	case 0:
		p.Reference, p.Candidate = base+col+" = "+lit(s.a), base+col+" = "+lit(s.b)
		p.Mutation += "/eq"
	case 1:
		p.Reference, p.Candidate = base+col+" = "+lit(s.a)+" AND "+col+" = "+lit(s.b), base+col+" = "+lit(s.a)
		p.Mutation += "/both"
	case 2:
		p.Reference, p.Candidate = base+col+" = "+lit(s.a)+" AND "+col+" <> "+lit(s.b), base+"FALSE"
		p.Mutation += "/ne"
	default:
		p.Reference, p.Candidate = base+col+" IN ("+lit(s.a)+", "+lit(s.b)+")", base+col+" = "+lit(s.a)
		p.Mutation += "/in"
	}
	return true
}

// famRaises writes a query PostgreSQL fails whatever the data (33.5): a
// constant 1/0 it folds, a negative LIMIT or OFFSET, a literal its type
// refuses, beside one that returns nothing.
func (g *gen) famRaises(p *Pair) bool {
	if !g.pgs {
		return false
	}
	t := g.table(func(t *mtable) bool { return len(t.cols) > 0 })
	if t == nil {
		return false
	}
	c := g.column(t, comparable)
	if c == nil {
		return false
	}
	col, tbl := ident(c.name), ident(t.name)
	empty := "SELECT " + col + " FROM " + tbl + " WHERE FALSE"
	p.Class = "33.5"
	switch g.r.IntN(6) {
	case 0:
		p.Reference, p.Candidate, p.Mutation = empty, empty+" LIMIT -1", "limit-negative"
	case 1:
		p.Reference, p.Candidate, p.Mutation = empty, empty+" OFFSET -1", "offset-negative"
	case 2:
		p.Reference = "SELECT 1 FROM " + tbl + " WHERE FALSE"
		p.Candidate = "SELECT 1/0 FROM " + tbl + " WHERE FALSE"
		p.Mutation = "division-by-zero"
	case 3:
		p.Reference = empty
		p.Candidate = "SELECT " + col + " FROM " + tbl + " WHERE FALSE AND 'abc'::integer = 1"
		p.Mutation = "bad-literal"
	case 4:
		e := g.column(t, catIs(catEnum))
		if e == nil {
			p.Reference = "SELECT " + col + " FROM " + tbl
			p.Candidate = "SELECT " + col + " FROM " + tbl + " LIMIT -1"
			p.Mutation = "limit-negative-rows"
			return true
		}
		p.Reference = "SELECT " + ident(e.name) + " FROM " + tbl + " WHERE FALSE"
		p.Candidate = "SELECT " + ident(e.name) + " FROM " + tbl + " WHERE " + ident(e.name) + " = 'no such label'"
		p.Mutation = "bad-enum-label"
	default:
		p.Reference = "SELECT count(*) FROM " + tbl + " WHERE FALSE"
		p.Candidate = "SELECT count(*) FROM " + tbl + " WHERE " + col + " IS NULL AND 1/0 = 1"
		p.Mutation = "division-by-zero-in-where"
	}
	return true
}

// famViewStar reads a view whose SELECT * was frozen before its table
// gained a column (33.6; the corpus's hand-written schema "reach" holds
// one): the view returns the columns it had, the table more.
func (g *gen) famViewStar(p *Pair) bool {
	if len(g.m.views) == 0 {
		return false
	}
	v := g.m.views[g.r.IntN(len(g.m.views))]
	t := g.m.table(strings.TrimSuffix(v.name, "_v"))
	if t == nil {
		return false
	}
	cols := make([]string, len(v.cols))
	for i, c := range v.cols {
		cols[i] = ident(c)
	}
	p.Class = "33.6"
	p.Reference = "SELECT * FROM " + ident(v.name)
	switch g.r.IntN(4) {
	case 0:
		p.Candidate, p.Mutation = "SELECT * FROM "+ident(t.name), "table-star"
	case 1:
		p.Candidate, p.Mutation = "SELECT "+strings.Join(cols, ", ")+" FROM "+ident(t.name), "frozen-columns"
	case 2:
		p.Reference = "SELECT s.* FROM " + ident(v.name) + " AS s WHERE " + ident(v.cols[0]) + " IS NOT NULL"
		p.Candidate, p.Mutation = "SELECT t.* FROM "+ident(t.name)+" AS t WHERE "+ident(v.cols[0])+" IS NOT NULL", "qualified-star"
	default:
		p.Reference = "SELECT count(*) FROM (SELECT * FROM " + ident(v.name) + ") AS s"
		p.Candidate, p.Mutation = "SELECT count(*) FROM "+ident(t.name), "count"
	}
	return true
}

// famDeclaredFacts asks what a key, NOT NULL or CHECK would decide, on
// any column (33.7): a constraint declared inside BEGIN … ROLLBACK (the
// corpus's schema "reach") never existed, so DISTINCT is not redundant,
// IS NULL not empty, the CHECK's violation not impossible.
func (g *gen) famDeclaredFacts(p *Pair) bool {
	t := g.table(func(t *mtable) bool { return !t.partitioned })
	if t == nil {
		return false
	}
	c := g.column(t, func(c mcol) bool { return comparable(c) && c.cat != catJSONB })
	if c == nil {
		return false
	}
	col, tbl := ident(c.name), ident(t.name)
	p.Class = "33.7"
	if fs := ddlFacts(g.ddl, g.m); len(fs) > 0 && g.r.IntN(2) == 0 {
		// half the time, a fact an ALTER TABLE of the schema's text
		// declares: in force, or rolled back
		f := fs[g.r.IntN(len(fs))]
		col, tbl = ident(f.col), ident(f.table)
		switch f.kind {
		case "unique":
			p.Reference, p.Candidate = "SELECT DISTINCT "+col+" FROM "+tbl, "SELECT "+col+" FROM "+tbl
		case "not-null":
			p.Reference, p.Candidate = "SELECT "+col+" FROM "+tbl+" WHERE "+col+" IS NULL", "SELECT "+col+" FROM "+tbl+" WHERE FALSE"
		default:
			p.Reference, p.Candidate = "SELECT "+col+" FROM "+tbl+" WHERE NOT ("+f.check+")", "SELECT "+col+" FROM "+tbl+" WHERE FALSE"
		}
		p.Mutation = "altered-" + f.kind
		return true
	}
	switch g.r.IntN(3) {
	case 0:
		p.Reference, p.Candidate, p.Mutation = "SELECT DISTINCT "+col+" FROM "+tbl, "SELECT "+col+" FROM "+tbl, "distinct"
	case 1:
		p.Reference, p.Candidate, p.Mutation = "SELECT "+col+" FROM "+tbl+" WHERE "+col+" IS NULL", "SELECT "+col+" FROM "+tbl+" WHERE FALSE", "is-null"
	default:
		if !c.cat.numeric() {
			return false
		}
		p.Reference, p.Candidate, p.Mutation = "SELECT "+col+" FROM "+tbl+" WHERE "+col+" <= 0", "SELECT "+col+" FROM "+tbl+" WHERE FALSE", "non-positive"
	}
	return true
}

// famLimitSpelling writes one LIMIT/OFFSET in two spellings the engine
// reads alike, or two values that select the same rows when the input is
// bounded, or two that differ (33.E: a not_equivalent needs a database).
func (g *gen) famLimitSpelling(p *Pair) bool {
	t := g.table(func(t *mtable) bool { return len(t.pk) == 1 && len(t.cols) > 1 && !t.partitioned })
	if t == nil {
		return false
	}
	k := ident(t.pk[0])
	c := g.column(t, func(c mcol) bool { return c.name != t.pk[0] && comparable(c) })
	if c == nil {
		return false
	}
	n := 1 + g.r.IntN(3)
	ns, n1 := strconv.Itoa(n), strconv.Itoa(n+1)
	base := "SELECT " + k + ", " + ident(c.name) + " FROM " + ident(t.name) + " ORDER BY " + k + ", 2"
	p.Class = "33.E"
	type v struct{ ref, cand, name string }
	vs := []v{
		{" LIMIT " + ns, " LIMIT " + ns + " OFFSET 0", "offset-0"},
		{" LIMIT " + ns, " LIMIT " + n1, "other-value"},
		{" LIMIT " + ns + " OFFSET 1", " LIMIT " + ns + " OFFSET 2", "other-offset"},
	}
	if g.pgs {
		vs = append(vs,
			v{" LIMIT " + ns, " LIMIT " + ns + " OFFSET NULL", "offset-null"},
			v{" LIMIT " + ns, " LIMIT " + ns + " OFFSET 1-1", "offset-expression"},
			v{" LIMIT " + n1, " LIMIT " + ns + ".5", "limit-rounded"},
			v{" LIMIT " + ns, " LIMIT (SELECT " + ns + ")", "limit-subquery"},
			v{" LIMIT " + ns, " LIMIT '" + ns + "'", "limit-text"},
			v{"", " LIMIT NULL", "limit-null"},
			v{"", " LIMIT ALL", "limit-all"})
	} else {
		vs = append(vs,
			v{" LIMIT " + ns, " LIMIT 0, " + ns, "limit-comma"},
			v{" LIMIT -1", " LIMIT -2", "negative-limits"},
			v{"", " LIMIT -1", "negative-limit"},
			v{" LIMIT " + ns, " LIMIT " + ns + ".0", "limit-integral-real"},
			v{" LIMIT " + ns, " LIMIT '" + ns + "'", "limit-text"})
	}
	x := vs[g.r.IntN(len(vs))]
	p.Reference, p.Candidate, p.Mutation = base+x.ref, base+x.cand, x.name
	p.Ordered, p.Limit = true, strings.Contains(x.ref, "LIMIT")
	switch g.r.IntN(4) {
	case 0:
		// LIMIT above an input bounded to three rows (a page size change)
		bounded := "SELECT " + k + " FROM " + ident(t.name) + " WHERE " + k + " IN (1, 2, 3) ORDER BY " + k
		p.Reference, p.Candidate, p.Mutation = bounded+" LIMIT 20", bounded+" LIMIT 25", "bounded-input"
		if c.cat.numeric() && g.r.IntN(2) == 0 {
			p.Reference, p.Candidate, p.Mutation = bounded+" LIMIT 3", bounded+" LIMIT 2", "bounded-input-cut"
		}
		p.Limit = true
	case 1:
		// LIMIT over an input of at most one row: DISTINCT on a pinned column
		lit := g.lit(*c)
		d := "SELECT DISTINCT " + ident(c.name) + " FROM " + ident(t.name) + " WHERE " + ident(c.name) + " = " + lit
		p.Reference, p.Candidate, p.Mutation = d+" LIMIT 1", d+" LIMIT 2", "pinned-distinct"
		p.Ordered, p.Limit = false, false
	}
	return true
}

// famSortFlip flips a sort key that decides nothing (33.E): one the
// filter pins, one NULL on every row, or an ORDER BY over rows that all
// tie; and one that decides the order.
func (g *gen) famSortFlip(p *Pair) bool {
	t := g.table(func(t *mtable) bool { return len(t.pk) == 1 && len(t.cols) > 1 })
	if t == nil {
		return false
	}
	k := ident(t.pk[0])
	c := g.column(t, func(c mcol) bool { return c.name != t.pk[0] && comparable(c) && c.cat != catJSONB && !c.nondet })
	if c == nil {
		return false
	}
	col, tbl := ident(c.name), ident(t.name)
	lit := g.lit(*c)
	p.Class = "33.E"
	p.Ordered = true
	switch g.r.IntN(4) {
	case 0:
		w := " WHERE " + col + " = " + lit
		p.Reference = "SELECT " + col + ", " + k + " FROM " + tbl + w + " ORDER BY " + col + ", " + k
		p.Candidate = "SELECT " + col + ", " + k + " FROM " + tbl + w + " ORDER BY " + col + " DESC, " + k
		p.Mutation = "pinned-key"
	case 1:
		w := " WHERE " + col + " IS NULL"
		p.Reference = "SELECT " + col + ", " + k + " FROM " + tbl + w + " ORDER BY " + col + " DESC, " + k
		p.Candidate = "SELECT " + col + ", " + k + " FROM " + tbl + w + " ORDER BY " + col + ", " + k
		p.Mutation = "null-key"
	case 2:
		w := " WHERE " + col + " = " + lit
		p.Reference = "SELECT " + col + " FROM " + tbl + w + " ORDER BY " + col
		p.Candidate = "SELECT " + col + " FROM " + tbl + w
		p.Mutation = "every-row-ties"
	default:
		p.Reference = "SELECT " + col + ", " + k + " FROM " + tbl + " ORDER BY " + col + ", " + k
		p.Candidate = "SELECT " + col + ", " + k + " FROM " + tbl + " ORDER BY " + col + " DESC, " + k
		p.Mutation = "deciding-key"
	}
	return true
}

// ddlFact is a constraint an ALTER TABLE of a schema's text declares on
// one column: kind "unique", "not-null" or "check" (with its condition).
type ddlFact struct{ table, col, kind, check string }

var (
	alterRE     = regexp.MustCompile(`(?is)^ALTER\s+TABLE\s+(?:ONLY\s+)?(?:public\.)?"?(\w+)"?\s+(.*)$`)
	addUniqueRE = regexp.MustCompile(`(?is)^ADD\s+CONSTRAINT\s+\S+\s+UNIQUE\s*\(\s*"?(\w+)"?\s*\)`)
	setNotNulRE = regexp.MustCompile(`(?is)^ALTER\s+COLUMN\s+"?(\w+)"?\s+SET\s+NOT\s+NULL`)
	addCheckRE  = regexp.MustCompile(`(?is)^ADD\s+CONSTRAINT\s+\S+\s+CHECK\s*\((.*)\)\s*$`)
	checkColRE  = regexp.MustCompile(`\w+`)
)

// ddlFacts reads the single-column facts the schema's ALTER TABLE
// statements declare (the text, not the engine: a fact declared inside
// BEGIN … ROLLBACK is read too, which is the point), for tables and
// columns the engine has.
func ddlFacts(ddl string, m *meta) []ddlFact {
	var out []ddlFact
	for _, stmt := range strings.Split(ddl, ";") {
		stmt = strings.TrimSpace(stripComments(stmt))
		sm := alterRE.FindStringSubmatch(stmt)
		if sm == nil {
			continue
		}
		t := m.table(sm[1])
		if t == nil {
			continue
		}
		rest := strings.TrimSpace(sm[2])
		switch {
		case addUniqueRE.MatchString(rest):
			out = append(out, ddlFact{table: t.name, col: addUniqueRE.FindStringSubmatch(rest)[1], kind: "unique"})
		case setNotNulRE.MatchString(rest):
			out = append(out, ddlFact{table: t.name, col: setNotNulRE.FindStringSubmatch(rest)[1], kind: "not-null"})
		case addCheckRE.MatchString(rest):
			body := addCheckRE.FindStringSubmatch(rest)[1]
			for _, w := range checkColRE.FindAllString(body, -1) {
				if t.col(w) != nil {
					out = append(out, ddlFact{table: t.name, col: w, kind: "check", check: body})
					break
				}
			}
		}
	}
	kept := out[:0]
	for _, f := range out {
		if m.table(f.table).col(f.col) != nil {
			kept = append(kept, f)
		}
	}
	return kept
}

// stripComments drops -- comments from SQL text.
func stripComments(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if j := strings.Index(l, "--"); j >= 0 {
			lines[i] = l[:j]
		}
	}
	return strings.Join(lines, "\n")
}
