package campaign

import "strings"

// famDroppedRaise writes an integer expression that overflows on the
// column's largest value (integer + 1, bigint × 2³², smallint + smallint
// 1) into a DISTINCT, GROUP BY or ORDER BY list (of the query, a derived
// table or an IN subquery) that the other side leaves out. The
// expression's value cannot change the rows, but PostgreSQL evaluates it
// and fails on the row holding the largest value (the row pools hold
// 2147483647 and 32767), so the pair is different on such a database; the
// same pair with the bare column is equivalent. Found by hand in issue 35:
// the prover dropped such keys (group-key-determined, group-on-key, a
// DISTINCT over a key, sort keys after a key, a subquery's ORDER BY) as
// if they could not raise.
func (g *gen) famDroppedRaise(p *Pair) bool {
	if !g.pgs {
		return false
	}
	t := g.table(func(t *mtable) bool { return len(t.pk) > 0 && hasCol(overflows)(t) })
	if t == nil {
		return false
	}
	c := g.column(t, overflows)
	col, tbl := ident(c.name), ident(t.name)
	e, shape := overflowExpr(col, c.sqlType), "raise"
	if g.r.IntN(3) == 0 {
		e, shape = col, "bare"
	}
	key := make([]string, len(t.pk))
	for i, k := range t.pk {
		key[i] = ident(k)
	}
	keys := strings.Join(key, ", ")
	p.Class = "35.overflow"
	switch g.r.IntN(9) {
	case 0:
		p.Reference = "SELECT count(*) FROM (SELECT DISTINCT " + keys + ", " + e + " FROM " + tbl + ") x"
		p.Candidate = "SELECT count(*) FROM " + tbl
		p.Mutation = "distinct-count/" + shape
	case 1:
		p.Reference = "SELECT " + keys + " FROM (SELECT DISTINCT " + keys + ", " + e + " AS e FROM " + tbl + ") x"
		p.Candidate = "SELECT " + keys + " FROM " + tbl
		p.Mutation = "distinct-project/" + shape
	case 2:
		p.Reference = "SELECT " + col + ", count(*) FROM " + tbl + " GROUP BY " + col + ", " + e
		p.Candidate = "SELECT " + col + ", count(*) FROM " + tbl + " GROUP BY " + col
		p.Mutation = "group-key/" + shape
	case 3:
		// The key orders every row; PostgreSQL still evaluates e.
		p.Reference = "SELECT " + keys + " FROM " + tbl + " ORDER BY " + keys + ", " + e
		p.Candidate = "SELECT " + keys + " FROM " + tbl + " ORDER BY " + keys
		p.Mutation = "sort-key/" + shape
	case 4:
		p.Reference = "SELECT count(*) FROM (SELECT " + keys + " FROM " + tbl + " ORDER BY " + e + ") x"
		p.Candidate = "SELECT count(*) FROM " + tbl
		p.Mutation = "derived-order/" + shape
	case 5:
		// A regrouped sum evaluates other partial sums.
		p.Reference = "SELECT " + keys + ", " + regroup(col, c.sqlType, shape == "bare") + " FROM " + tbl
		p.Candidate = "SELECT " + keys + ", " + col + " - 10 FROM " + tbl
		p.Mutation = "regroup/" + shape
	case 6:
		// A smallint literal computes in int2: 32767::int2 + 1::int2
		// raises "smallint out of range".
		lit, m := "32767::smallint + 1::smallint", "smallint-literal/raise"
		if shape == "bare" {
			lit, m = "32766::smallint + 1::smallint", "smallint-literal/bare"
		}
		p.Reference = "SELECT " + keys + " FROM " + tbl + " WHERE " + lit + " > 0"
		p.Candidate = "SELECT " + keys + " FROM " + tbl
		p.Mutation = m
	case 7:
		// COUNT of a NOT NULL key's expression counts rows, but
		// PostgreSQL evaluates it (COUNT(k + 1) fails on the largest k).
		kc := pkColumn(t)
		ke := overflowExpr(ident(kc.name), kc.sqlType)
		if ke == "" || shape == "bare" {
			ke = ident(kc.name)
		}
		p.Reference = "SELECT count(" + ke + ") FROM " + tbl
		p.Candidate = "SELECT count(*) FROM " + tbl
		p.Mutation = "count-expr/" + map[bool]string{true: "bare", false: "raise"}[ke == ident(kc.name)]
	default:
		k := key[0]
		p.Reference = "SELECT " + keys + " FROM " + tbl + " WHERE " + k + " IN (SELECT " + k + " FROM " + tbl + " ORDER BY " + e + ")"
		p.Candidate = "SELECT " + keys + " FROM " + tbl
		p.Mutation = "in-order/" + shape
	}
	return true
}

// overflows holds for the integer columns overflowExpr can make raise.
func overflows(c mcol) bool { return overflowExpr("x", c.sqlType) != "" }

// overflowExpr is an expression over col of type sqlType that PostgreSQL
// evaluates without error except on the type's (or the pools') largest
// values: "" for another type.
func overflowExpr(col, sqlType string) string {
	switch sqlType {
	case "integer":
		return "(" + col + " + 1)"
	case "bigint":
		return "(" + col + " * 4294967296)"
	case "smallint":
		return "(" + col + " + 1::smallint)"
	}
	return ""
}

// regroup is col - 10 written as a sum whose first partial sum overflows
// on the type's largest values (bare: one that cannot, (col - 4) - 6).
func regroup(col, sqlType string, bare bool) string {
	if bare {
		return "(" + col + " - 4) - 6"
	}
	switch sqlType {
	case "bigint":
		return "(" + col + " + 9223372036854775000) - 9223372036854775010"
	case "smallint":
		return "(" + col + " + 32767::smallint) - 32777"
	}
	return "(" + col + " + 2147483000) - 2147483010"
}

// pkColumn is t's first primary-key column.
func pkColumn(t *mtable) mcol {
	for _, c := range t.cols {
		if c.name == t.pk[0] {
			return c
		}
	}
	return mcol{name: t.pk[0]}
}
