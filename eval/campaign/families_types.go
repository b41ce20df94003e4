package campaign

import (
	"strconv"
	"strings"
)

// siblings are the casts to a type of the same family that look like
// identity but are not always (issue 18 cause 9), per category; "same"
// marks the ones that are identity.
var pgSiblings = map[category][]string{
	catInt:       {"smallint", "bigint", "integer", "numeric", "real", "float8", "numeric(5,1)", "text"},
	catSmallint:  {"integer", "smallint", "real", "numeric(3,0)", "text"},
	catNumeric:   {"numeric(5,1)", "numeric", "real", "float8", "integer", "numeric(12,4)", "text"},
	catReal:      {"float8", "real", "numeric", "numeric(5,1)", "text"},
	catFloat8:    {"real", "float8", "numeric", "text"},
	catText:      {"varchar(2)", "bpchar", "char(2)", "\"char\"", "name", "text", "varchar"},
	catBpchar:    {"text", "varchar(2)", "bpchar", "char(5)", "char(1)", "varchar"},
	catTimestamp: {"timestamptz", "date", "timestamp(0)", "timestamp"},
	catTstz:      {"timestamp", "date", "timestamptz(0)", "timestamptz"},
	catInterval:  {"interval", "interval hour", "text"},
	catJSON:      {"jsonb", "text", "json"},
	catJSONB:     {"json", "text", "jsonb"},
	catEnum:      {"text", "name"},
	catBool:      {"boolean", "text", "integer"},
	catDate:      {"timestamp", "timestamptz", "text"},
}

var sqliteSiblings = map[category][]string{
	catInt:     {"INTEGER", "REAL", "NUMERIC", "TEXT"},
	catNumeric: {"INTEGER", "REAL", "NUMERIC", "TEXT"},
	catFloat8:  {"INTEGER", "REAL", "NUMERIC", "TEXT"},
	catText:    {"TEXT", "INTEGER", "NUMERIC", "BLOB"},
	catAny:     {"TEXT", "INTEGER", "REAL", "NUMERIC"},
	catBool:    {"INTEGER", "TEXT"},
}

// famCast adds a cast to a sibling type, in the output, a filter, a join
// or a grouping.
func (g *gen) famCast(p *Pair) bool {
	sib := pgSiblings
	if !g.pgs {
		sib = sqliteSiblings
	}
	t := g.table(hasCol(func(c mcol) bool { return len(sib[c.cat]) > 0 }))
	if t == nil {
		return false
	}
	c := g.column(t, func(c mcol) bool { return len(sib[c.cat]) > 0 })
	typ := sib[c.cat][g.r.IntN(len(sib[c.cat]))]
	p.Class = "9"
	col := ident(c.name)
	cast := g.cast(col, typ)
	p.Mutation = string(c.cat) + "-as-" + strings.Trim(strings.ToLower(typ), `"`)
	w := g.where(t, "")
	switch g.r.IntN(4) {
	case 0:
		p.Reference = "SELECT " + col + " FROM " + ident(t.name) + w
		p.Candidate = "SELECT " + cast + " FROM " + ident(t.name) + w
	case 1:
		l := g.lit(*c)
		if c.cat == catJSON {
			l = "'{\"a\":1}'"
		}
		op := "="
		if c.cat != catJSON && c.cat != catJSONB && g.r.IntN(2) == 0 {
			op = cmpOps[2+g.r.IntN(4)]
		}
		cmp := " " + op + " " + l
		if c.cat == catJSON {
			p.Reference = "SELECT id FROM " + ident(t.name) + " WHERE " + col + "::text" + cmp
		} else {
			p.Reference = "SELECT " + strings.Join(g.items(t, ""), ", ") + " FROM " + ident(t.name) + " WHERE " + col + cmp
		}
		p.Candidate = strings.Replace(p.Reference, "WHERE "+col, "WHERE "+cast, 1)
	case 2:
		p.Reference = "SELECT " + col + ", count(*) FROM " + ident(t.name) + " GROUP BY " + col
		p.Candidate = "SELECT " + cast + ", count(*) FROM " + ident(t.name) + " GROUP BY " + cast
	default:
		p.Reference = "SELECT DISTINCT " + col + " FROM " + ident(t.name) + w
		p.Candidate = "SELECT DISTINCT " + cast + " FROM " + ident(t.name) + w
	}
	return true
}

// famLiteral spells a literal as another type or scale: float4 and
// float8, numeric scales, -0, exponent form.
func (g *gen) famLiteral(p *Pair) bool {
	t := g.table(hasCol(func(c mcol) bool { return c.cat.numeric() }))
	if t == nil {
		return false
	}
	c := g.column(t, func(c mcol) bool { return c.cat.numeric() })
	col := ident(c.name)
	p.Class = "10"
	base := "SELECT " + strings.Join(g.items(t, "", col), ", ") + " FROM " + ident(t.name) + " WHERE " + col
	lits := []string{"0.1", "1.5", "0.5", "2.25", "3.3", "1"}
	l := lits[g.r.IntN(len(lits))]
	op := []string{" = ", " < ", " >= ", " <> "}[g.r.IntN(4)]
	p.Reference = base + op + l
	alts := []string{g.cast(l, "real"), g.cast(l, "float8"), l + "0", g.cast(l, "numeric(6,3)"), l + "e0"}
	if !g.pgs {
		alts = []string{g.cast(l, "REAL"), l + "0", l + "e0", "'" + l + "'", g.cast(l, "TEXT")}
	}
	k := g.r.IntN(len(alts) + 2)
	switch {
	case k < len(alts):
		p.Candidate = base + op + alts[k]
		p.Mutation = "spelled-" + strconv.Itoa(k)
	case k == len(alts):
		p.Reference = "SELECT " + col + " * 1.0 FROM " + ident(t.name)
		p.Candidate = "SELECT " + col + " * 1.00 FROM " + ident(t.name)
		p.Mutation = "scale"
	default:
		p.Reference = "SELECT " + col + " FROM " + ident(t.name) + " WHERE " + col + " = 0"
		p.Candidate = "SELECT " + col + " FROM " + ident(t.name) + " WHERE " + col + " = -0.0"
		if g.r.IntN(2) == 0 {
			p.Reference = "SELECT " + col + " FROM " + ident(t.name)
			p.Candidate = "SELECT " + col + " + 0 FROM " + ident(t.name)
			p.Mutation = "plus-zero"
		} else {
			p.Mutation = "minus-zero"
		}
	}
	return true
}

// famBound tightens or loosens a bound by one: x > k against x >= k+1
// (equal on integers only: a SQLite INTEGER column holds 5.5), x >= k,
// BETWEEN, NOT.
func (g *gen) famBound(p *Pair) bool {
	t := g.table(hasCol(func(c mcol) bool { return c.cat.numeric() }))
	if t == nil {
		return false
	}
	c := g.column(t, func(c mcol) bool { return c.cat.numeric() })
	col := ident(c.name)
	k := g.r.IntN(12) - 1
	ks, k1, km := strconv.Itoa(k), strconv.Itoa(k+1), strconv.Itoa(k-1)
	p.Class = "other"
	if !g.pgs && (c.cat == catInt || c.cat == catNumeric) {
		p.Class = "17"
	}
	base := "SELECT " + strings.Join(g.items(t, "", col), ", ") + " FROM " + ident(t.name) + " WHERE "
	variants := [][3]string{
		{col + " > " + ks, col + " >= " + k1, "gt-ge-next"},
		{col + " < " + ks, col + " <= " + km, "lt-le-prev"},
		{col + " > " + ks, col + " >= " + ks, "gt-ge"},
		{col + " BETWEEN " + ks + " AND " + k1, "(" + col + " >= " + ks + " AND " + col + " <= " + k1 + ")", "between"},
		{"NOT (" + col + " > " + ks + ")", col + " <= " + ks, "not-gt"},
		{col + " <> " + ks, "(" + col + " < " + ks + " OR " + col + " > " + ks + ")", "ne-split"},
		{col + " > " + ks + " AND " + col + " < " + k1, "FALSE", "empty-range"},
		{col + " IN (" + ks + ", " + k1 + ")", "(" + col + " >= " + ks + " AND " + col + " <= " + k1 + ")", "in-range"},
	}
	v := variants[g.r.IntN(len(variants))]
	p.Reference, p.Candidate, p.Mutation = base+v[0], base+v[1], v[2]
	return true
}

// famSemijoin replaces a join by IN or EXISTS, along a foreign key or a
// key (equal when the joined side is unique) or not.
func (g *gen) famSemijoin(p *Pair) bool {
	t := g.table(func(t *mtable) bool { return len(t.fks) > 0 })
	if t == nil {
		return false
	}
	fk := t.fks[g.r.IntN(len(t.fks))]
	par := g.m.table(fk.ref)
	if par == nil || len(fk.cols) != 1 {
		return false
	}
	p.Class = "other"
	if len(g.m.children(par)) > 0 {
		p.Class = "6"
	}
	if fk.deferrable {
		p.Class = "7"
	}
	fc, pc := fk.cols[0], fk.refCols[0]
	if pc == "" && len(par.pk) == 1 {
		pc = par.pk[0]
	}
	items := g.items(t, "a")
	w := ""
	if g.r.IntN(2) == 0 {
		w = " AND " + g.pred(par, "b")
	}
	p.Reference = "SELECT " + strings.Join(items, ", ") + " FROM " + from(t, "a") + " JOIN " + from(par, "b") + " ON " + q("a", fc) + " = " + q("b", pc) + w
	switch g.r.IntN(4) {
	case 0:
		p.Candidate = "SELECT " + strings.Join(items, ", ") + " FROM " + from(t, "a") + " WHERE " + q("a", fc) + " IN (SELECT " + q("b", pc) + " FROM " + from(par, "b") + strings.Replace(w, " AND ", " WHERE ", 1) + ")"
		p.Mutation = "in"
	case 1:
		p.Candidate = "SELECT " + strings.Join(items, ", ") + " FROM " + from(t, "a") + " WHERE EXISTS (SELECT 1 FROM " + from(par, "b") + " WHERE " + q("a", fc) + " = " + q("b", pc) + w + ")"
		p.Mutation = "exists"
	case 2:
		// the join dropped: equal when the foreign key holds and w is empty
		p.Candidate = "SELECT " + strings.Join(items, ", ") + " FROM " + from(t, "a") + " WHERE " + q("a", fc) + " IS NOT NULL"
		if w != "" {
			p.Reference = strings.TrimSuffix(p.Reference, w)
		}
		p.Mutation = "fk-join-elimination"
		if !g.pgs {
			p.Class = "other"
		}
	default:
		p.Reference = "SELECT " + strings.Join(items, ", ") + " FROM " + from(t, "a") + " LEFT JOIN " + from(par, "b") + " ON " + q("a", fc) + " = " + q("b", pc)
		p.Candidate = "SELECT " + strings.Join(items, ", ") + " FROM " + from(t, "a")
		p.Mutation = "left-join-elimination"
	}
	return true
}

// famSelfJoin joins a table to itself on its key and another column.
func (g *gen) famSelfJoin(p *Pair) bool {
	t := g.table(func(t *mtable) bool { return len(t.pk) == 1 && len(t.cols) > 1 })
	if t == nil {
		return false
	}
	k := t.pk[0]
	b := g.column(t, func(c mcol) bool { return c.name != k && comparable(c) && c.cat != catJSONB })
	if b == nil {
		return false
	}
	p.Class = "16"
	if len(g.m.children(t)) > 0 {
		p.Class = "6"
	}
	items := g.items(t, "y")
	on := q("y", k) + " = " + q("z", k) + " AND " + q("y", b.name) + " = " + q("z", b.name)
	p.Reference = "SELECT " + strings.Join(items, ", ") + " FROM " + from(t, "y") + " JOIN " + from(t, "z") + " ON " + on
	plain := strings.ReplaceAll(strings.Join(items, ", "), "y.", "")
	switch g.r.IntN(3) {
	case 0:
		p.Candidate = "SELECT " + plain + " FROM " + ident(t.name)
		p.Mutation = "to-table"
	case 1:
		p.Candidate = "SELECT " + plain + " FROM " + ident(t.name) + " WHERE " + ident(b.name) + " IS NOT NULL"
		p.Mutation = "to-not-null"
	default:
		p.Candidate = "SELECT " + plain + " FROM " + ident(t.name) + " WHERE " + ident(b.name) + " = " + ident(b.name)
		p.Mutation = "to-reflexive"
	}
	return true
}

// famOrderAgg moves an ORDER BY between a subquery and an order-sensitive
// consumer.
func (g *gen) famOrderAgg(p *Pair) bool {
	t := g.table(func(t *mtable) bool { return len(t.pk) > 0 })
	if t == nil {
		return false
	}
	c := g.column(t, func(c mcol) bool { return c.cat != catJSON })
	col := ident(c.name)
	key := strings.Join(t.pk, ", ")
	txt := g.cast(col, "text")
	p.Class = "15"
	var agg, aggOrdered string
	switch k := g.r.IntN(4); {
	case !g.pgs:
		agg, aggOrdered = "group_concat("+txt+", ',')", "group_concat("+txt+", ',' ORDER BY "+key+")"
	case k == 0:
		agg, aggOrdered = "string_agg("+txt+", ',')", "string_agg("+txt+", ',' ORDER BY "+key+")"
	case k == 1:
		agg, aggOrdered = "array_agg("+col+")", "array_agg("+col+" ORDER BY "+key+")"
	case k == 2:
		agg, aggOrdered = "json_agg("+col+")", "json_agg("+col+" ORDER BY "+key+")"
	default:
		agg, aggOrdered = "string_agg("+txt+", ',')", "string_agg("+txt+", ',' ORDER BY "+key+")"
	}
	sub := "(SELECT * FROM " + ident(t.name) + " ORDER BY " + key + ") AS s"
	p.Reference = "SELECT " + agg + " FROM " + sub
	switch g.r.IntN(4) {
	case 0:
		p.Candidate = "SELECT " + agg + " FROM " + ident(t.name)
		p.Mutation = "order-dropped"
	case 1:
		p.Candidate = "SELECT " + aggOrdered + " FROM " + ident(t.name)
		p.Mutation = "order-into-aggregate"
	case 2:
		p.Reference = "SELECT row_number() OVER (), " + col + " FROM " + sub
		p.Candidate = "SELECT row_number() OVER (), " + col + " FROM " + ident(t.name)
		p.Mutation = "row-number"
	default:
		p.Reference = "SELECT " + agg + " FROM " + sub
		p.Candidate = "SELECT " + agg + " FROM (SELECT * FROM " + ident(t.name) + ") AS s"
		p.Mutation = "order-dropped-in-subquery"
	}
	return true
}
