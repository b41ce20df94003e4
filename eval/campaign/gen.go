package campaign

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Pair is one judged pair of related queries: a reference and a
// mutation of it.
type Pair struct {
	Schema    string `json:"schema"`
	Engine    string `json:"engine"`
	Reference string `json:"reference"`
	Candidate string `json:"candidate"`
	// Mutation names how the candidate was made from the reference;
	// Class is the cause of issue 18 the mutation probes ("1".."18") or
	// "other".
	Family   string `json:"family"`
	Mutation string `json:"mutation"`
	Class    string `json:"class"`
	// Ordered says the reference has a top-level ORDER BY over all its
	// output columns; Limit that a LIMIT follows it (rows tied at the
	// cut may be either).
	Ordered bool `json:"ordered,omitempty"`
	Limit   bool `json:"limit,omitempty"`
	// Volatile pairs call random(): the engine seeds it before each
	// query. Modifies pairs hold a data-modifying statement: the tables
	// after each query are compared too.
	Volatile bool `json:"volatile,omitempty"`
	Modifies bool `json:"modifies,omitempty"`
}

// gen writes pairs over one schema from the engine's report of it.
type gen struct {
	m   *meta
	r   *rand.Rand
	d   catalog.Dialect
	pgs bool // PostgreSQL syntax
	// schema is the product's catalog, which internal/sqlgen writes
	// general queries over (the family "sqlgen"); nil leaves it out.
	schema *catalog.Schema
	// ddl is the schema's text as the corpus holds it (families that
	// read what the text declares, which the engine may not hold).
	ddl string
	// only, when set, restricts the families drawn to those it matches
	// (Options.Families).
	only *regexp.Regexp
}

func newGen(m *meta, d catalog.Dialect, r *rand.Rand) *gen {
	return &gen{m: m, r: r, d: d, pgs: d == catalog.Postgres}
}

// family is one kind of related pair; it returns false when the schema
// offers nothing for it.
type family struct {
	name   string
	weight int
	f      func(g *gen, p *Pair) bool
}

// pair writes one pair, deterministic in the generator's state.
func (g *gen) pair() Pair {
	fams := families
	if g.only != nil {
		fams = nil
		for _, f := range families {
			if g.only.MatchString(f.name) {
				fams = append(fams, f)
			}
		}
	}
	total := 0
	for _, f := range fams {
		total += f.weight
	}
	for tries := 0; total > 0; tries++ {
		k := g.r.IntN(total)
		for _, f := range fams {
			if k -= f.weight; k < 0 {
				p := Pair{Family: f.name}
				if f.f(g, &p) {
					p.Mutation = f.name + "/" + p.Mutation
					g.maybeOrder(&p)
					return p
				}
				break
			}
		}
		if tries > 1000 {
			break
		}
	}
	return Pair{Reference: "SELECT 1", Candidate: "SELECT 1", Mutation: "none", Class: "other"}
}

// maybeOrder sometimes orders both queries by all their output columns
// (the reference's order is then checked), and sometimes cuts them.
func (g *gen) maybeOrder(p *Pair) {
	if p.Modifies || p.Ordered || g.r.IntN(4) != 0 {
		return
	}
	// A pair that orders, cuts or reads * keeps its own form: ORDER BY 1
	// over * would not order by every column.
	for _, s := range []string{"ORDER BY", "LIMIT", "OFFSET", "SELECT *", ".*"} {
		if strings.Contains(p.Reference, s) || strings.Contains(p.Candidate, s) {
			return
		}
	}
	n := outputWidth(p.Reference)
	if n == 0 || n != outputWidth(p.Candidate) {
		return
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = strconv.Itoa(i + 1)
		if g.r.IntN(3) == 0 {
			keys[i] += " DESC"
		}
	}
	ob := " ORDER BY " + strings.Join(keys, ", ")
	if g.r.IntN(2) == 0 {
		ob += " LIMIT " + strconv.Itoa(1+g.r.IntN(4))
		p.Limit = true
	}
	if isSetOp(p.Reference) || isSetOp(p.Candidate) {
		return
	}
	p.Reference += ob
	p.Candidate += ob
	p.Ordered = true
}

func isSetOp(q string) bool {
	u := strings.ToUpper(q)
	return strings.Contains(u, " UNION ") || strings.Contains(u, " EXCEPT ") || strings.Contains(u, " INTERSECT ")
}

// outputWidth counts the top-level select list's items of a query the
// generator wrote (0 when it cannot tell).
func outputWidth(q string) int {
	u := strings.ToUpper(q)
	if !strings.HasPrefix(u, "SELECT ") {
		return 0
	}
	depth, n, inStr := 0, 1, false
	for i := 7; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'':
			inStr = !inStr
		case inStr:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			n++
		case depth == 0 && strings.HasPrefix(u[i:], " FROM "):
			return n
		}
	}
	return n
}

// --- schema picks -------------------------------------------------------

// table picks a table that can hold rows; with a filter, one satisfying it.
func (g *gen) table(ok func(*mtable) bool) *mtable {
	var ts []*mtable
	for _, t := range g.m.tables {
		if ok == nil || ok(t) {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return nil
	}
	return ts[g.r.IntN(len(ts))]
}

// column picks a column of t satisfying ok (nil: any).
func (g *gen) column(t *mtable, ok func(mcol) bool) *mcol {
	var cs []int
	for i, c := range t.cols {
		if ok == nil || ok(c) {
			cs = append(cs, i)
		}
	}
	if len(cs) == 0 {
		return nil
	}
	return &t.cols[cs[g.r.IntN(len(cs))]]
}

func hasCol(ok func(mcol) bool) func(*mtable) bool {
	return func(t *mtable) bool {
		for _, c := range t.cols {
			if ok(c) {
				return true
			}
		}
		return false
	}
}

func catIs(cats ...category) func(mcol) bool {
	return func(c mcol) bool {
		for _, k := range cats {
			if c.cat == k {
				return true
			}
		}
		return false
	}
}

// --- SQL pieces ---------------------------------------------------------

func (g *gen) alias() string { return string(rune('a' + g.r.IntN(3))) }

// q qualifies a column by an alias.
func q(alias, col string) string {
	if alias == "" {
		return ident(col)
	}
	return alias + "." + ident(col)
}

// ident quotes a name only where it must be.
func ident(s string) string {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return pgIdent(s)
		}
	}
	return s
}

// cast writes a cast in the dialect's spelling.
func (g *gen) cast(e, typ string) string {
	if g.pgs {
		return e + "::" + typ
	}
	return "CAST(" + e + " AS " + typ + ")"
}

// lit writes a literal that compares with column c.
func (g *gen) lit(c mcol) string {
	if c.cat == catEnum && len(c.enum) > 0 {
		return "'" + c.enum[g.r.IntN(len(c.enum))] + "'"
	}
	if ps := typedPools[c.sqlType]; g.pgs && len(ps) > 0 {
		// uuid, bytea, inet, ranges, times: text would not parse
		return ps[g.r.IntN(len(ps))]
	}
	ps := pools[c.cat]
	if len(ps) == 0 {
		return "NULL"
	}
	l := ps[g.r.IntN(len(ps))]
	if l == "'NaN'" && !g.pgs {
		l = "1.5"
	}
	if g.pgs && strings.HasPrefix(l, "'") {
		switch c.cat {
		case catDate, catTimestamp, catTstz, catInterval, catJSON, catJSONB:
			return c.cat.sqlName() + " " + l
		}
	}
	return l
}

func (c category) sqlName() string {
	switch c {
	case catTstz:
		return "timestamptz"
	}
	return string(c)
}

var cmpOps = []string{"=", "<>", "<", "<=", ">", ">="}

// comparable reports whether c takes the comparison operators with its literals.
func comparable(c mcol) bool { return c.cat != catJSON && c.cat != catAny }

// pred writes a simple condition over t's columns under alias a.
func (g *gen) pred(t *mtable, a string) string {
	c := g.column(t, comparable)
	if c == nil {
		return "TRUE"
	}
	col := q(a, c.name)
	switch g.r.IntN(6) {
	case 0:
		return col + " IS NULL"
	case 1:
		return col + " IS NOT NULL"
	case 2:
		if c.cat == catJSONB || c.cat == catBool {
			return col + " IS NOT NULL"
		}
		return col + " IN (" + g.lit(*c) + ", " + g.lit(*c) + ")"
	}
	if c.cat == catBool {
		return col
	}
	op := cmpOps[g.r.IntN(len(cmpOps))]
	if c.cat == catJSONB {
		op = "="
	}
	return col + " " + op + " " + g.lit(*c)
}

// where writes " WHERE ..." or nothing.
func (g *gen) where(t *mtable, a string, extra ...string) string {
	conds := append([]string(nil), extra...)
	if g.r.IntN(2) == 0 {
		conds = append(conds, g.pred(t, a))
	}
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

// items writes 1-3 columns of t (always including must when given).
func (g *gen) items(t *mtable, a string, must ...string) []string {
	out := append([]string(nil), must...)
	n := 1 + g.r.IntN(3)
	for len(out) < n+len(must) && len(out) < len(t.cols) {
		c := t.cols[g.r.IntN(len(t.cols))]
		s := q(a, c.name)
		dup := false
		for _, o := range out {
			dup = dup || o == s
		}
		if !dup {
			out = append(out, s)
		}
	}
	return out
}

func from(t *mtable, a string) string {
	if a == "" {
		return ident(t.name)
	}
	return ident(t.name) + " AS " + a
}

// keyCols are t's primary key, or nil.
func keyCols(t *mtable) []string { return t.pk }
