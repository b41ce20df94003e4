package refute

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/build"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Queries with parameters ($1, $2, ...) mean one result per assignment of
// values: two such queries are equivalent only when they agree for every
// value of every parameter (the same $n in both is one value) on every
// legal database. So a counterexample is a database together with values
// for the parameters, and the search chooses both. Each assignment is
// bound into copies of the plans as literals of the parameters' inferred
// types (a bound value may be NULL), and the copies are searched as
// queries without parameters; the assignment found is kept through
// minimization and reported beside the INSERTs.
//
// Candidate values for a parameter come from the queries: first the
// literals compared with the column the parameter is compared with, then
// their neighbours (±1, a prefix, a case change), NULL, the other literals
// of its type, and a few values of the type (0, 1, 'a').

// Param is the value a counterexample binds to one parameter.
type Param struct {
	// Name is the placeholder, "$1".
	Name string `json:"name"`
	// Type is the parameter's type, as inferred from the queries.
	Type string `json:"type"`
	// Value is the value's text (as PostgreSQL prints it); empty with
	// Null.
	Value string `json:"value"`
	Null  bool   `json:"null,omitempty"`
}

// String is "$1 = 5", "$2 = 'Bob'" or "$3 = NULL".
func (p Param) String() string { return p.Name + " = " + p.Literal() }

// Literal writes the value as SQL: NULL, a number as is, anything else
// quoted (an untyped literal, which PostgreSQL resolves to the
// parameter's type as it resolves a bound text value).
func (p Param) Literal() string {
	if p.Null {
		return "NULL"
	}
	switch catalog.TypeFromName(p.Type) {
	case catalog.Int, catalog.Numeric, catalog.Float:
		if _, err := strconv.ParseFloat(p.Value, 64); err == nil && !strings.ContainsAny(p.Value, "nN") {
			return p.Value
		}
	}
	return "'" + strings.ReplaceAll(p.Value, "'", "''") + "'"
}

// paramSlot is one parameter of a pair: its placeholder and type.
type paramSlot struct {
	name string
	num  int
	typ  catalog.Type
	// inLimit: the parameter bounds a LIMIT or OFFSET. SQLite raises an
	// error for a NULL there wherever it evaluates the bound, which a
	// counterexample cannot count on (an uncorrelated subquery's LIMIT
	// is evaluated even when no outer row needs the subquery), so NULL
	// is not tried for it in the SQLite dialect.
	inLimit bool
}

// paramsOf lists the parameters of plans by number; a parameter typed
// apart in two plans takes the first plan's type.
func paramsOf(plans ...*plan.Plan) []paramSlot {
	seen := map[string]bool{}
	inLimit := map[string]bool{}
	var out []paramSlot
	for _, p := range plans {
		if p == nil || p.Root == nil {
			continue
		}
		markLimitParams(p.Root, inLimit)
		p.Root.WalkNodes(func(n *plan.Node) {
			n.Exprs(func(s **plan.Expr) {
				plan.WalkDeep(*s, func(x *plan.Expr) {
					if num, ok := build.ParamNumber(x); ok && !seen[x.Value] {
						seen[x.Value] = true
						out = append(out, paramSlot{name: x.Value, num: num, typ: x.Typ})
					}
				})
			})
		})
	}
	for i := range out {
		out[i].inLimit = inLimit[out[i].name]
	}
	sort.Slice(out, func(i, j int) bool { return out[i].num < out[j].num })
	return out
}

// markLimitParams marks the parameters in a LIMIT or OFFSET of n's plan,
// subqueries' plans included.
func markLimitParams(n *plan.Node, inLimit map[string]bool) {
	n.WalkNodes(func(m *plan.Node) {
		for _, b := range []*plan.Expr{m.Limit, m.Offset} {
			plan.WalkDeep(b, func(x *plan.Expr) {
				if _, ok := build.ParamNumber(x); ok {
					inLimit[x.Value] = true
				}
			})
		}
		m.Exprs(func(e **plan.Expr) {
			plan.Walk(*e, func(x *plan.Expr) {
				if x.Kind == plan.Subquery && x.Sub != nil {
					markLimitParams(x.Sub, inLimit)
				}
			})
		})
	})
}

// bindParams returns a copy of p with every parameter replaced by its
// value in vals, a literal of the parameter's own type.
func bindParams(p *plan.Plan, vals []Param) *plan.Plan {
	byName := make(map[string]Param, len(vals))
	for _, v := range vals {
		byName[v.Name] = v
	}
	c := p.Clone()
	var bind func(e *plan.Expr) *plan.Expr
	bind = func(e *plan.Expr) *plan.Expr {
		return plan.Rewrite(e, func(x *plan.Expr) *plan.Expr {
			if x.Kind == plan.Subquery && x.Sub != nil {
				bindNode(x.Sub, bind)
			}
			v, ok := byName[x.Value]
			if x.Kind != plan.Param || !ok {
				return x
			}
			var k *plan.Expr
			if v.Null {
				k = plan.NewNull(x.Typ)
			} else {
				k = plan.NewConst(x.Typ, v.Value)
			}
			k.Pos = x.Pos
			return k
		})
	}
	bindNode(c.Root, bind)
	return c
}

func bindNode(n *plan.Node, bind func(*plan.Expr) *plan.Expr) {
	n.WalkNodes(func(m *plan.Node) { m.Exprs(func(s **plan.Expr) { *s = bind(*s) }) })
}

// maxAssignments bounds the assignments of values one search tries.
const maxAssignments = 8

// maxCandidates bounds the values tried per parameter; maxGathered
// bounds those gathered before the list is cut (a 100,000-item IN list
// offers as many literals).
const maxCandidates, maxGathered = maxAssignments, 64

// assignments returns up to maxAssignments assignments of values to
// params, the likeliest to tell the queries apart first. Assignment i
// gives each parameter its i-th candidate when i is even, and parameter j
// its (i+j)-th when i is odd (wrapping around), so that parameters with
// the same candidates also get different values ($1 against $2). The
// second assignment tried gives the k-th parameter compared with a column
// the k-th literal compared with it (pettype = $1 ... pettype = $2
// against the reference's 'dog' and 'cat': $1 = 'dog', $2 = 'cat'), when
// that differs from the first.
func assignments(s *catalog.Schema, params []paramSlot, plans ...*plan.Plan) [][]Param {
	lits := collectLiteralsFor(s.Dialect, plans...)
	cols := paramColumns(plans...)
	cands := make([][]Param, len(params))
	most := 0
	ranked := make([]Param, len(params))
	rank := map[colKey]int{}
	for i, ps := range params {
		cands[i] = candidates(ps, lits, cols[ps.name])
		if s.Dialect == catalog.SQLite && ps.inLimit {
			cands[i] = slices.DeleteFunc(cands[i], func(p Param) bool { return p.Null })
			if len(cands[i]) == 0 {
				cands[i] = []Param{{Name: ps.name, Type: ps.typ.String(), Value: "1"}}
			}
		}
		most = max(most, len(cands[i]))
		ranked[i] = cands[i][0]
		if ks := cols[ps.name]; len(ks) > 0 {
			ranked[i] = cands[i][rank[ks[0]]%len(cands[i])]
			rank[ks[0]]++
		}
	}
	var out [][]Param
	for i := 0; i < most && len(out) < maxAssignments; i++ {
		a := make([]Param, len(params))
		for j := range params {
			a[j] = cands[j][(i+j*(i%2))%len(cands[j])]
		}
		out = append(out, a)
		if i == 0 && !slices.Equal(a, ranked) {
			out = append(out, ranked)
		}
	}
	return out
}

// candidates orders the values tried for one parameter; never empty.
func candidates(ps paramSlot, lits *literals, cols []colKey) []Param {
	var out []Param
	seen := map[string]bool{}
	add := func(p Param) {
		k := p.Value
		if p.Null {
			k = "\x00null"
		}
		if !seen[k] && len(out) < maxGathered {
			seen[k] = true
			out = append(out, p)
		}
	}
	typ := ps.typ.String()
	val := func(v exec.Value) {
		if v.K == exec.KNull {
			add(Param{Name: ps.name, Type: typ, Null: true})
			return
		}
		add(Param{Name: ps.name, Type: typ, Value: v.String()})
	}
	for _, k := range cols {
		for _, v := range lits.exact[k] {
			val(v)
		}
	}
	// Two neighbours before NULL, so that a parameter compared with 5
	// tries 4 and 6 early.
	want := len(out) + 2
neighbours:
	for _, k := range cols {
		for _, v := range lits.byCol[k] {
			if len(out) >= want {
				break neighbours
			}
			val(v)
		}
	}
	add(Param{Name: ps.name, Type: typ, Null: true})
	for _, k := range cols {
		for _, v := range lits.byCol[k] {
			val(v)
		}
	}
	for _, v := range lits.byType[ps.typ] {
		val(v)
	}
	for _, v := range typeDefaults[ps.typ] {
		add(Param{Name: ps.name, Type: typ, Value: v})
	}
	if len(out) == 1 { // only NULL: a type without defaults
		add(Param{Name: ps.name, Type: typ, Value: "a"})
	}
	// NULL is always tried, however many literals come before it.
	if len(out) > maxCandidates {
		keep := out[: maxCandidates-1 : maxCandidates-1]
		if slices.ContainsFunc(keep, func(p Param) bool { return p.Null }) {
			return out[:maxCandidates]
		}
		return append(keep, Param{Name: ps.name, Type: typ, Null: true})
	}
	return out
}

// typeDefaults are values of each type tried after the queries' own.
var typeDefaults = map[catalog.Type][]string{
	catalog.Int:       {"0", "1", "-1", "2"},
	catalog.Numeric:   {"0", "1", "-1", "0.5"},
	catalog.Float:     {"0", "1", "-1", "0.5"},
	catalog.Text:      {"a", "%", "", "_", "A"},
	catalog.Bool:      {"true", "false"},
	catalog.Date:      {"2000-01-01", "2000-01-02"},
	catalog.Timestamp: {"2000-01-01 00:00:00", "2000-01-02 00:00:00"},
}

// paramColumns maps each parameter to the base columns it is compared
// with (a = $1, $1 IN (a, b), a BETWEEN $1 AND $2), through casts.
func paramColumns(plans ...*plan.Plan) map[string][]colKey {
	out := map[string][]colKey{}
	for _, p := range plans {
		if p == nil || p.Root == nil {
			continue
		}
		alias := aliases(p)
		visit := func(x *plan.Expr) {
			if (x.Kind != plan.Op && x.Kind != plan.Func) || len(x.Args) < 2 {
				return
			}
			var keys []colKey
			var params []string
			for _, a := range x.Args {
				if k, _, ok := base(p, alias, a); ok {
					keys = append(keys, k)
				}
				for a != nil && a.Kind == plan.Cast && len(a.Args) == 1 {
					a = a.Args[0]
				}
				if a != nil && a.Kind == plan.Param {
					params = append(params, a.Value)
				}
			}
			for _, name := range params {
				for _, k := range keys {
					if !containsKey(out[name], k) {
						out[name] = append(out[name], k)
					}
				}
			}
		}
		p.Root.WalkNodes(func(n *plan.Node) { n.Exprs(func(s **plan.Expr) { plan.WalkDeep(*s, visit) }) })
	}
	return out
}

func containsKey(ks []colKey, k colKey) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}
