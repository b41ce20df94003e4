package campaign

import (
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/internal/sqlgen"
)

// families are the kinds of related pairs, each probing causes of issue
// 18; most write a meaning-preserving and a meaning-changing variant, so
// that both proved labels occur. weight is the relative frequency.
var families = []family{
	{"check", 8, (*gen).famCheck},
	{"distinct-key", 8, (*gen).famDistinctKey},
	{"only", 4, (*gen).famOnly},
	{"generated", 5, (*gen).famGenerated},
	{"enum", 4, (*gen).famEnum},
	{"cast", 10, (*gen).famCast},
	{"literal", 8, (*gen).famLiteral},
	{"bound", 8, (*gen).famBound},
	{"semijoin", 7, (*gen).famSemijoin},
	{"selfjoin", 5, (*gen).famSelfJoin},
	{"order-agg", 6, (*gen).famOrderAgg},
	{"temporal", 6, (*gen).famTemporal},
	{"join-subst", 6, (*gen).famJoinSubst},
	{"volatile", 4, (*gen).famVolatile},
	{"modifying", 3, (*gen).famModifying},
	{"collation", 7, (*gen).famCollation},
	{"limit", 4, (*gen).famLimit},
	{"group", 5, (*gen).famGroup},
	{"dialect", 4, (*gen).famDialect},
	{"domain", 4, (*gen).famDomain},
	{"sqlgen", 3, (*gen).famSqlgen},
	// issue 33 (families_i33.go, families_lite.go); the SQLite-only ones
	// return false on PostgreSQL and the reverse, so each engine's share
	// of them is about the same
	{"window-filter", 5, (*gen).famWindowFilter},
	{"row-null", 4, (*gen).famRowNull},
	{"star-join", 5, (*gen).famStarJoin},
	{"typed-literal", 5, (*gen).famTypedLiteral},
	{"raises", 4, (*gen).famRaises},
	{"view-star", 4, (*gen).famViewStar},
	{"declared-facts", 4, (*gen).famDeclaredFacts},
	{"limit-spelling", 6, (*gen).famLimitSpelling},
	{"sort-flip", 5, (*gen).famSortFlip},
	{"bare-min-max", 6, (*gen).famBareMinMax},
	{"join-swap-limit", 5, (*gen).famJoinSwapLimit},
	{"compound-affinity", 5, (*gen).famCompoundAffinity},
	{"declared-type", 6, (*gen).famDeclaredType},
	{"sqlite-forms", 5, (*gen).famSQLiteForms},
	{"case-literal", 5, (*gen).famCaseLiteral},
	// issue 35 (families_overflow.go)
	{"dropped-raise", 4, (*gen).famDroppedRaise},
}

// famSqlgen takes a pair of internal/sqlgen (the structure-aware fuzzing
// grammar: joins, grouping, subqueries, set operations, and a rewrite,
// literal bump or wrapping of the query) over the product's catalog of
// the schema. Pairs with LIMIT are left out: sqlgen orders by one column,
// and rows tied at the cut may be any of them.
func (g *gen) famSqlgen(p *Pair) bool {
	if g.schema == nil {
		return false
	}
	sg := sqlgen.New(g.schema, sqlgen.NewRandSource(g.r.Uint64()), sqlgen.Config{MaxDepth: 2, MaxChain: 3, MaxList: 6, MaxBranches: 3, MaxCTEs: 2})
	sp := sg.Pair()
	if strings.Contains(sp.Reference+sp.Candidate, "LIMIT") {
		return false
	}
	p.Reference, p.Candidate = sp.Reference, sp.Candidate
	p.Mutation, p.Class = string(sp.Shape)+"/"+sp.Rewrite, "other"
	return true
}

// famCheck adds a table's CHECK as a conjunct, drops it, or asks for a
// row violating it (no row does).
func (g *gen) famCheck(p *Pair) bool {
	t := g.table(func(t *mtable) bool { return len(t.checks) > 0 })
	if t == nil {
		return false
	}
	ck := t.checks[g.r.IntN(len(t.checks))]
	items := strings.Join(g.items(t, ""), ", ")
	base := "SELECT " + items + " FROM " + ident(t.name)
	w := g.where(t, "")
	p.Class = "1"
	p.Reference = base + w
	switch g.r.IntN(4) {
	case 0: // a row's CHECK is true or NULL: this keeps every row
		p.Candidate = base + addCond(w, "("+ck+") IS NOT FALSE")
		p.Mutation = "is-not-false"
	case 1: // NULL rows drop out: equal only where the CHECK's columns are NOT NULL
		p.Candidate = base + addCond(w, ck)
		p.Mutation = "conjunct"
	case 2: // no row violates it
		p.Reference = base + addCond(w, "NOT "+ck)
		p.Candidate = base + " WHERE FALSE"
		p.Mutation = "violated"
	default:
		p.Reference = "SELECT count(*) FROM " + ident(t.name) + " WHERE NOT " + ck
		p.Candidate = "SELECT 0"
		p.Mutation = "count-violations"
	}
	return true
}

func addCond(where, cond string) string {
	if where == "" {
		return " WHERE " + cond
	}
	return where + " AND " + cond
}

// famDomain does for a domain's CHECK and NOT NULL what famCheck does
// for a table's.
func (g *gen) famDomain(p *Pair) bool {
	t := g.table(hasCol(func(c mcol) bool { return len(c.domainCk) > 0 }))
	if t == nil {
		return false
	}
	c := g.column(t, func(c mcol) bool { return len(c.domainCk) > 0 })
	ck := c.domainCk[0]
	base := "SELECT " + strings.Join(g.items(t, "", ident(c.name)), ", ") + " FROM " + ident(t.name)
	p.Class = "5"
	switch g.r.IntN(3) {
	case 0:
		p.Reference, p.Candidate, p.Mutation = base+" WHERE NOT "+ck, base+" WHERE FALSE", "violated"
	case 1:
		p.Reference, p.Candidate, p.Mutation = base, base+" WHERE "+ck, "conjunct"
	default:
		p.Reference, p.Candidate, p.Mutation = base+" WHERE "+ident(c.name)+" IS NULL", base+" WHERE FALSE", "not-null"
	}
	return true
}

// uniqueSets are t's primary key and unique constraints.
func uniqueSets(t *mtable) [][]string {
	var out [][]string
	if len(t.pk) > 0 {
		out = append(out, t.pk)
	}
	return append(out, t.uniques...)
}

// famDistinctKey adds or removes DISTINCT over a key, a unique set, an
// expression or partial unique index, or a non-key.
func (g *gen) famDistinctKey(p *Pair) bool {
	t := g.table(nil)
	if t == nil || t.partitioned && g.r.IntN(2) == 0 {
		return false
	}
	p.Class = "2"
	if len(g.m.children(t)) > 0 {
		p.Class = "6"
	}
	a := ""
	var must []string
	switch sets := uniqueSets(t); {
	case t.name == "item" && g.r.IntN(3) == 0:
		p.Class = "3"
		if g.r.IntN(2) == 0 {
			must = []string{"lower(sku)"}
			p.Mutation = "expression-index"
		} else {
			must = []string{"sku"}
			p.Mutation = "partial-index"
			w := " WHERE active"
			if g.r.IntN(2) == 0 {
				w = " WHERE NOT active"
			}
			if !g.pgs {
				w = strings.Replace(w, "active", "active <> 0", 1)
			}
			p.Reference = "SELECT DISTINCT sku FROM item" + w
			p.Candidate = "SELECT sku FROM item" + w
			return true
		}
	case len(sets) > 0 && g.r.IntN(4) != 0:
		set := sets[g.r.IntN(len(sets))]
		for _, c := range set {
			must = append(must, q(a, c))
		}
		p.Mutation = "key"
		if len(t.uniques) > 0 && len(set) == len(t.uniques[0]) && set[0] == t.uniques[0][0] {
			p.Mutation = "unique"
		}
	default:
		p.Mutation = "non-key"
	}
	items := g.items(t, a, must...)
	w := g.where(t, a)
	p.Reference = "SELECT DISTINCT " + strings.Join(items, ", ") + " FROM " + from(t, a) + w
	p.Candidate = "SELECT " + strings.Join(items, ", ") + " FROM " + from(t, a) + w
	if g.r.IntN(3) == 0 {
		p.Reference = "SELECT count(DISTINCT " + items[0] + ") FROM " + from(t, a) + w
		p.Candidate = "SELECT count(" + items[0] + ") FROM " + from(t, a) + w
	}
	return true
}

// famOnly reads a table with and without its children.
func (g *gen) famOnly(p *Pair) bool {
	if !g.pgs {
		return false
	}
	t := g.table(func(t *mtable) bool { return len(g.m.children(t)) > 0 || g.r.IntN(4) == 0 })
	if t == nil {
		return false
	}
	items := strings.Join(g.items(t, ""), ", ")
	w := g.where(t, "")
	p.Class = "6"
	p.Reference = "SELECT " + items + " FROM " + ident(t.name) + w
	p.Candidate = "SELECT " + items + " FROM ONLY " + ident(t.name) + w
	p.Mutation = "from-only"
	if g.r.IntN(3) == 0 {
		// a union of the children's ONLY scans and the parent's
		parts := []string{"SELECT " + items + " FROM ONLY " + ident(t.name) + w}
		for _, c := range g.m.children(t) {
			parts = append(parts, "SELECT "+items+" FROM "+ident(c.name)+w)
		}
		p.Candidate = strings.Join(parts, " UNION ALL ")
		p.Mutation = "union-of-children"
	}
	return true
}

// famGenerated replaces a generated column by its expression.
func (g *gen) famGenerated(p *Pair) bool {
	t := g.table(hasCol(func(c mcol) bool { return c.genExpr != "" }))
	if t == nil {
		return false
	}
	c := g.column(t, func(c mcol) bool { return c.genExpr != "" })
	p.Class = "4"
	e := c.genExpr
	switch g.r.IntN(3) {
	case 0:
		p.Reference = "SELECT id, " + ident(c.name) + " FROM " + ident(t.name)
		p.Candidate = "SELECT id, " + e + " FROM " + ident(t.name)
		p.Mutation = "output"
	case 1:
		k := strconv.Itoa(g.r.IntN(50))
		p.Reference = "SELECT id FROM " + ident(t.name) + " WHERE " + ident(c.name) + " > " + k
		p.Candidate = "SELECT id FROM " + ident(t.name) + " WHERE " + e + " > " + k
		p.Mutation = "filter"
	default:
		p.Reference = "SELECT id FROM " + ident(t.name) + " WHERE " + ident(c.name) + " IS DISTINCT FROM " + e
		p.Candidate = "SELECT id FROM " + ident(t.name) + " WHERE FALSE"
		p.Mutation = "never-differs"
	}
	return true
}

// famEnum compares enum values by their declared order.
func (g *gen) famEnum(p *Pair) bool {
	t := g.table(hasCol(catIs(catEnum)))
	if t == nil {
		// SQLite: a CHECK (status IN (...)) column
		t = g.table(func(t *mtable) bool { return t.col("status") != nil })
		if t == nil {
			return false
		}
		p.Class = "5"
		p.Reference = "SELECT id FROM " + ident(t.name) + " WHERE status < 'paid'"
		p.Candidate = "SELECT id FROM " + ident(t.name) + " WHERE status IN ('cancelled', 'new')"
		p.Mutation = "check-in-list"
		return true
	}
	c := g.column(t, catIs(catEnum))
	p.Class = "5"
	k := 1 + g.r.IntN(len(c.enum)-1)
	below := "'" + strings.Join(c.enum[:k], "', '") + "'"
	byText := append([]string(nil), c.enum...)
	var textBelow []string
	for _, l := range byText {
		if l < c.enum[k] {
			textBelow = append(textBelow, l)
		}
	}
	col := ident(c.name)
	p.Reference = "SELECT id, " + col + " FROM " + ident(t.name) + " WHERE " + col + " < '" + c.enum[k] + "'"
	switch g.r.IntN(4) {
	case 0:
		p.Candidate = "SELECT id, " + col + " FROM " + ident(t.name) + " WHERE " + col + " IN (" + below + ")"
		p.Mutation = "declared-order"
	case 1:
		if len(textBelow) == 0 {
			textBelow = []string{"zzz"}
		}
		p.Candidate = "SELECT id, " + col + " FROM " + ident(t.name) + " WHERE " + col + " IN ('" + strings.Join(textBelow, "', '") + "')"
		p.Mutation = "text-order"
	case 2:
		p.Reference = "SELECT id, " + col + " FROM " + ident(t.name) + " ORDER BY " + col + ", id"
		p.Candidate = "SELECT id, " + col + " FROM " + ident(t.name) + " ORDER BY " + col + "::text, id"
		p.Ordered = true
		p.Mutation = "order-by-text"
	default:
		p.Reference = "SELECT max(" + col + ") FROM " + ident(t.name)
		p.Candidate = "SELECT " + col + " FROM " + ident(t.name) + " ORDER BY " + col + " DESC LIMIT 1"
		p.Mutation = "max"
	}
	return true
}
