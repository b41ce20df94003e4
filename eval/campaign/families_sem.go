package campaign

import (
	"strconv"
	"strings"
)

// famTemporal compares intervals and timestamptz values written in
// different spellings that may or may not be the same value.
func (g *gen) famTemporal(p *Pair) bool {
	if !g.pgs {
		return false
	}
	t := g.table(hasCol(catIs(catInterval, catTstz, catTimestamp)))
	if t == nil {
		return false
	}
	c := g.column(t, catIs(catInterval, catTstz, catTimestamp))
	col := ident(c.name)
	items := strings.Join(g.items(t, "", col), ", ")
	base := "SELECT " + items + " FROM " + ident(t.name) + " WHERE "
	p.Class = "12"
	type v struct{ ref, cand, name string }
	var vs []v
	switch c.cat {
	case catInterval:
		vs = []v{
			{col + " = interval '1 day'", col + " = interval '24 hours'", "day-hours"},
			{col + " = interval '1 mon'", col + " = interval '30 days'", "month-days"},
			{col + " = interval '1 day'", col + "::text = '1 day'", "text"},
			{col + " > interval '1 day'", col + " >= interval '1 day 00:00:01'", "bound"},
		}
		if g.r.IntN(3) == 0 {
			p.Class = "11"
			p.Reference = "SELECT " + col + ", date '2020-01-31' + " + col + " FROM " + ident(t.name) + " WHERE " + col + " = interval '30 days'"
			p.Candidate = "SELECT " + col + ", date '2020-01-31' + interval '30 days' FROM " + ident(t.name) + " WHERE " + col + " = interval '30 days'"
			p.Mutation = "pinned-to-literal"
			return true
		}
	case catTstz:
		vs = []v{
			{col + " = timestamptz '2020-01-01 10:00+03'", col + " = timestamptz '2020-01-01 07:00+00'", "offset"},
			{col + " = timestamptz '2020-01-01 10:00+03'", col + " = timestamptz '2020-01-01 10:00'", "offset-dropped"},
			{col + " < timestamptz '2020-01-01 00:00+00'", col + "::date < date '2020-01-01'", "date"},
			{col + " < now()", col + " < current_timestamp", "now"},
			{col + " >= timestamp '2020-01-01 07:00'", col + " >= timestamptz '2020-01-01 07:00+00'", "timestamp-literal"},
		}
	default:
		vs = []v{
			{col + " = timestamp '2020-01-01 10:00'", col + " = timestamptz '2020-01-01 10:00+00'", "tz-literal"},
			{col + " < timestamp '2020-01-02'", col + "::date < date '2020-01-02'", "date"},
			{col + " < timestamp '2020-01-02'", col + " < date '2020-01-02'", "date-literal"},
			{col + " >= timestamp '2020-01-01 00:00'", col + "::timestamptz >= timestamptz '2020-01-01 00:00+00'", "as-timestamptz"},
		}
	}
	x := vs[g.r.IntN(len(vs))]
	p.Reference, p.Candidate, p.Mutation = base+x.ref, base+x.cand, string(c.cat)+"-"+x.name
	return true
}

// famJoinSubst joins two columns by = and outputs the other side:
// substituting join-equal columns is sound only where = is identity.
func (g *gen) famJoinSubst(p *Pair) bool {
	t1 := g.table(nil)
	if t1 == nil {
		return false
	}
	c1 := g.column(t1, func(c mcol) bool { return comparable(c) && c.cat != catJSONB && c.cat != catBool })
	if c1 == nil {
		return false
	}
	like := func(c mcol) bool {
		return c.cat == c1.cat || c.cat.numeric() && c1.cat.numeric() || c.cat.textual() && c1.cat.textual() && c.cat != catEnum && c1.cat != catEnum ||
			(c.cat == catTstz || c.cat == catTimestamp) && (c1.cat == catTstz || c1.cat == catTimestamp)
	}
	t2 := g.table(hasCol(like))
	c2 := g.column(t2, like)
	p.Class = "11"
	if c1.nondet || c2.nondet {
		p.Class = "8"
	}
	on := q("a", c1.name) + " = " + q("b", c2.name)
	p.Reference = "SELECT " + q("a", c1.name) + " FROM " + from(t1, "a") + " JOIN " + from(t2, "b") + " ON " + on
	p.Candidate = "SELECT " + q("b", c2.name) + " FROM " + from(t1, "a") + " JOIN " + from(t2, "b") + " ON " + on
	p.Mutation = string(c1.cat) + "=" + string(c2.cat)
	if g.r.IntN(3) == 0 {
		p.Reference = "SELECT " + q("a", c1.name) + " FROM " + from(t1, "a") + " JOIN " + from(t2, "b") + " ON " + on + " GROUP BY " + q("a", c1.name)
		p.Candidate = "SELECT " + q("b", c2.name) + " FROM " + from(t1, "a") + " JOIN " + from(t2, "b") + " ON " + on + " GROUP BY " + q("b", c2.name)
		p.Mutation += "/grouped"
	}
	return true
}

// famVolatile merges, duplicates or moves calls of random().
func (g *gen) famVolatile(p *Pair) bool {
	if !g.pgs {
		return false
	}
	t := g.table(func(t *mtable) bool { return len(t.pk) == 1 })
	if t == nil {
		return false
	}
	k := ident(t.pk[0])
	p.Class, p.Volatile = "13", true
	switch g.r.IntN(5) {
	case 0:
		p.Reference = "SELECT " + k + ", random() < 0.5, random() < 0.5 FROM " + ident(t.name)
		p.Candidate = "SELECT " + k + ", s.r, s.r FROM (SELECT " + k + ", random() < 0.5 AS r FROM " + ident(t.name) + ") AS s"
		p.Mutation = "merged-in-subquery"
	case 1:
		p.Reference = "WITH c AS (SELECT random() AS r) SELECT r = r FROM c"
		p.Candidate = "SELECT random() = random()"
		p.Mutation = "cte-inlined"
	case 2:
		p.Reference = "SELECT " + k + " FROM " + ident(t.name) + " WHERE random() < 0.5"
		p.Candidate = "SELECT " + k + " FROM " + ident(t.name) + " WHERE random() < 0.5 AND random() < 0.5"
		p.Mutation = "duplicated-conjunct"
	case 3:
		p.Reference = "SELECT " + k + " FROM " + ident(t.name) + " WHERE random() < 0.5"
		p.Candidate = "SELECT " + k + " FROM " + ident(t.name) + " WHERE random() < 0.5"
		p.Mutation = "identical"
	default:
		p.Reference = "SELECT s.x FROM (SELECT " + k + " AS x, random() AS r FROM " + ident(t.name) + ") AS s WHERE s.r < 0.5 OR s.r > 0.9"
		p.Candidate = "SELECT " + k + " FROM " + ident(t.name) + " WHERE random() < 0.5 OR random() > 0.9"
		p.Mutation = "derived-column-inlined"
	}
	return true
}

// famModifying puts a data-modifying statement in a CTE.
func (g *gen) famModifying(p *Pair) bool {
	t := g.table(func(t *mtable) bool { return !t.partitioned })
	if t == nil {
		return false
	}
	items := strings.Join(g.items(t, ""), ", ")
	p.Class, p.Modifies = "14", true
	read := "SELECT " + items + " FROM " + ident(t.name)
	p.Reference = read
	switch g.r.IntN(3) {
	case 0:
		p.Candidate = "WITH d AS (DELETE FROM " + ident(t.name) + g.where(t, "") + " RETURNING *) " + read
		p.Mutation = "delete"
	case 1:
		c := g.column(t, func(c mcol) bool { return !c.gen })
		p.Candidate = "WITH d AS (UPDATE " + ident(t.name) + " SET " + ident(c.name) + " = " + ident(c.name) + g.where(t, "") + " RETURNING *) " + read
		p.Mutation = "update-same"
	default:
		p.Candidate = "WITH d AS (DELETE FROM " + ident(t.name) + " WHERE FALSE RETURNING *) " + read
		p.Mutation = "delete-nothing"
	}
	return true
}

// famCollation probes a nondeterministic collation (ICU, NOCASE,
// RTRIM): = is not identity there.
func (g *gen) famCollation(p *Pair) bool {
	t := g.table(hasCol(func(c mcol) bool { return c.nondet || c.cat.textual() && c.cat != catEnum }))
	if t == nil {
		return false
	}
	c := g.column(t, func(c mcol) bool { return c.nondet })
	if c == nil {
		c = g.column(t, func(c mcol) bool { return c.cat.textual() && c.cat != catEnum })
	}
	col := ident(c.name)
	p.Class = "8"
	tbl := ident(t.name)
	binary := col + ` COLLATE "C"`
	if !g.pgs {
		binary = col + " COLLATE BINARY"
	}
	switch g.r.IntN(10) {
	case 6:
		// Operators that merge equal rows keep the spelling their plan
		// meets first (DISTINCT) or last (SQLite's UNION): a proof
		// between them assumes the spellings agree.
		p.Reference = "SELECT " + col + " FROM " + tbl + " UNION SELECT " + col + " FROM " + tbl
		p.Candidate = "SELECT DISTINCT " + col + " FROM " + tbl
		p.Mutation = "self-union"
	case 7:
		p.Reference = "SELECT " + col + " FROM " + tbl + " EXCEPT SELECT " + col + " FROM " + tbl + " WHERE 1 = 0"
		p.Candidate = "SELECT DISTINCT " + col + " FROM " + tbl
		p.Mutation = "except-nothing"
	case 8:
		p.Reference = "SELECT DISTINCT " + col + " FROM " + tbl
		p.Candidate = "SELECT " + col + " FROM " + tbl + " GROUP BY " + col
		p.Mutation = "distinct-group"
	case 9:
		p.Reference = "SELECT DISTINCT a." + col + " FROM " + tbl + " AS a JOIN " + tbl + " AS b ON a." + col + " = b." + col
		p.Candidate = "SELECT DISTINCT a." + col + " FROM " + tbl + " AS b JOIN " + tbl + " AS a ON a." + col + " = b." + col
		p.Mutation = "distinct-join-swapped"
	case 0:
		p.Reference = "SELECT " + col + " FROM " + tbl + " WHERE " + col + " = 'abc' AND " + col + " = 'ABC'"
		p.Candidate = "SELECT " + col + " FROM " + tbl + " WHERE FALSE"
		p.Mutation = "contradiction"
	case 1:
		p.Reference = "SELECT " + col + " FROM " + tbl + " WHERE " + col + " = 'ab'"
		p.Candidate = "SELECT 'ab' FROM " + tbl + " WHERE " + col + " = 'ab'"
		p.Mutation = "pinned-to-literal"
	case 2:
		p.Reference = "SELECT id FROM " + tbl + " WHERE " + col + " = 'ab'"
		p.Candidate = "SELECT id FROM " + tbl + " WHERE " + binary + " = 'ab'"
		p.Mutation = "binary"
		if t.col("id") == nil {
			p.Reference = strings.Replace(p.Reference, "SELECT id", "SELECT "+col, 1)
			p.Candidate = strings.Replace(p.Candidate, "SELECT id", "SELECT "+col, 1)
		}
	case 3:
		p.Reference = "SELECT DISTINCT " + col + " FROM " + tbl
		p.Candidate = "SELECT DISTINCT lower(" + col + ") FROM " + tbl
		p.Mutation = "distinct-lower"
	case 4:
		p.Reference = "SELECT count(DISTINCT " + col + ") FROM " + tbl
		p.Candidate = "SELECT count(DISTINCT " + binary + ") FROM " + tbl
		p.Mutation = "count-distinct"
	default:
		p.Reference = "SELECT a." + col + ", b." + col + " FROM " + tbl + " AS a JOIN " + tbl + " AS b ON a." + col + " = b." + col
		p.Candidate = "SELECT a." + col + ", a." + col + " FROM " + tbl + " AS a JOIN " + tbl + " AS b ON a." + col + " = b." + col
		p.Mutation = "self-join-substituted"
	}
	return true
}

// famLimit rewrites ORDER BY ... LIMIT as an aggregate and moves limits.
func (g *gen) famLimit(p *Pair) bool {
	t := g.table(hasCol(func(c mcol) bool { return c.cat.numeric() || c.cat.textual() }))
	if t == nil {
		return false
	}
	c := g.column(t, func(c mcol) bool { return c.cat.numeric() || c.cat.textual() })
	col, tbl := ident(c.name), ident(t.name)
	p.Class = "other"
	n := strconv.Itoa(1 + g.r.IntN(3))
	switch g.r.IntN(4) {
	case 0:
		p.Reference = "SELECT max(" + col + ") FROM " + tbl
		p.Candidate = "SELECT " + col + " FROM " + tbl + " WHERE " + col + " IS NOT NULL ORDER BY " + col + " DESC LIMIT 1"
		p.Mutation = "max"
	case 1:
		p.Reference = "SELECT " + col + " FROM " + tbl + " ORDER BY " + col + " LIMIT " + n
		p.Candidate = "SELECT " + col + " FROM (SELECT " + col + " FROM " + tbl + " ORDER BY " + col + " LIMIT " + n + ") AS s ORDER BY " + col
		p.Ordered, p.Limit = true, true
		p.Mutation = "limit-in-subquery"
	case 2:
		p.Reference = "SELECT " + col + " FROM " + tbl + " ORDER BY " + col + " LIMIT " + n
		p.Candidate = "SELECT " + col + " FROM " + tbl + " ORDER BY " + col + " NULLS FIRST LIMIT " + n
		p.Ordered, p.Limit = true, true
		p.Mutation = "nulls-first"
	default:
		p.Reference = "SELECT min(" + col + ") FROM " + tbl
		p.Candidate = "SELECT " + col + " FROM " + tbl + " ORDER BY " + col + " LIMIT 1"
		p.Mutation = "min"
	}
	return true
}

// famGroup rewrites DISTINCT as GROUP BY, groups by a key and more.
func (g *gen) famGroup(p *Pair) bool {
	t := g.table(func(t *mtable) bool { return len(t.cols) > 1 })
	if t == nil {
		return false
	}
	items := g.items(t, "")
	list := strings.Join(items, ", ")
	tbl := ident(t.name)
	p.Class = "other"
	switch g.r.IntN(3) {
	case 0:
		p.Reference = "SELECT DISTINCT " + list + " FROM " + tbl
		p.Candidate = "SELECT " + list + " FROM " + tbl + " GROUP BY " + list
		p.Mutation = "distinct-group"
	case 1:
		if len(t.pk) == 0 {
			return false
		}
		k := strings.Join(t.pk, ", ")
		p.Reference = "SELECT " + k + ", count(*) FROM " + tbl + " GROUP BY " + k
		p.Candidate = "SELECT " + k + ", 1 FROM " + tbl
		p.Mutation = "group-by-key"
		p.Class = "2"
		if len(g.m.children(t)) > 0 {
			p.Class = "6"
		}
	default:
		p.Reference = "SELECT " + items[0] + ", count(*) FROM " + tbl + " GROUP BY " + items[0]
		p.Candidate = "SELECT " + items[0] + ", count(" + items[0] + ") FROM " + tbl + " GROUP BY " + items[0]
		p.Mutation = "count-star-column"
	}
	return true
}

// famDialect writes a candidate in a form the dialect's engine may
// reject (SQLite: a parenthesised UNION operand, = ANY (subquery), an
// aggregate in the ORDER BY of a plain query, an empty select list).
func (g *gen) famDialect(p *Pair) bool {
	t := g.table(func(t *mtable) bool { return len(t.cols) > 1 })
	if t == nil {
		return false
	}
	c := g.column(t, comparable)
	if c == nil {
		return false
	}
	col, tbl := ident(c.name), ident(t.name)
	p.Class = "18"
	switch g.r.IntN(4) {
	case 0:
		p.Reference = "SELECT " + col + " FROM " + tbl + " UNION SELECT " + col + " FROM " + tbl
		p.Candidate = "(SELECT " + col + " FROM " + tbl + ") UNION SELECT " + col + " FROM " + tbl
		p.Mutation = "parenthesised-union"
	case 1:
		p.Reference = "SELECT " + col + " FROM " + tbl + " WHERE " + col + " IN (SELECT " + col + " FROM " + tbl + ")"
		p.Candidate = "SELECT " + col + " FROM " + tbl + " WHERE " + col + " = ANY (SELECT " + col + " FROM " + tbl + ")"
		p.Mutation = "any-subquery"
	case 2:
		p.Reference = "SELECT count(*) FROM " + tbl
		p.Candidate = "SELECT count(*) FROM (SELECT FROM " + tbl + ") AS s"
		p.Mutation = "empty-select-list"
	default:
		p.Reference = "SELECT " + col + " FROM " + tbl
		p.Candidate = "SELECT " + col + " FROM " + tbl + " ORDER BY count(*)"
		p.Mutation = "aggregate-in-order-by"
	}
	return true
}
