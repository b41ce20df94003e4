package refute

import (
	"math/big"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// literals are the constants of the queries, per base column they are
// compared with and per type, each with neighbours that land on either
// side of the predicate that uses it.
type literals struct {
	// exact holds the literals themselves, tried more often than their
	// neighbours so that conjunctions of equalities get satisfied.
	exact map[colKey][]exec.Value
	// compared is exact less the operands of arithmetic (see
	// arithmetic): what a literal base writes in (seeds.go).
	compared map[colKey][]exec.Value
	byCol    map[colKey][]exec.Value
	byType   map[catalog.Type][]exec.Value
	// folds evaluates constant expressions compared with columns
	// (PostgreSQL plans only, whose semantics exec.EvalConst has).
	folds bool
	// likes holds, per column, the distinct patterns it is matched
	// with by LIKE or ILIKE (see likecombo.go): a string built from the
	// fixed parts matches an ILIKE pattern too.
	likes map[colKey][]string
	// regexes holds, per column, one string accepted by each regular
	// expression it is matched with (see regexcombo.go).
	regexes map[colKey][]string
	// jsonReads holds, per jsonb column, the paths read on it (see
	// jsonseeds.go).
	jsonReads map[colKey][]jsonRead
}

// collectLiterals collects the literals of plans without folding
// constant expressions (as for SQLite plans).
func collectLiterals(plans ...*plan.Plan) *literals {
	return collectLiteralsFor(catalog.SQLite, plans...)
}

// collectLiteralsFor collects the literals of plans of dialect d.
func collectLiteralsFor(d catalog.Dialect, plans ...*plan.Plan) *literals {
	l := &literals{exact: map[colKey][]exec.Value{}, compared: map[colKey][]exec.Value{}, byCol: map[colKey][]exec.Value{}, byType: map[catalog.Type][]exec.Value{},
		folds: d == catalog.Postgres}
	for _, p := range plans {
		if p == nil || p.Root == nil {
			continue
		}
		alias := aliases(p)
		visit := func(e *plan.Expr) {
			plan.WalkDeep(e, func(x *plan.Expr) { l.expr(p, alias, x) })
		}
		p.Root.WalkNodes(func(n *plan.Node) { n.Exprs(func(s **plan.Expr) { visit(*s) }) })
	}
	l.addLikeCombos()
	l.addRegexCombos()
	l.addJSONSeeds()
	return l
}

// aliases maps a computed column that merely renames another (a
// projection of a column) to that column, so that a literal compared
// with a subquery's output still reaches the base column.
func aliases(p *plan.Plan) map[plan.ColumnID]plan.ColumnID {
	m := map[plan.ColumnID]plan.ColumnID{}
	var nodes func(n *plan.Node)
	nodes = func(n *plan.Node) {
		n.WalkNodes(func(n *plan.Node) {
			for _, it := range n.Proj {
				if it.Expr != nil && it.Expr.Kind == plan.ColRef {
					m[it.ID] = it.Expr.Col
				}
			}
			for i, in := range n.SetCols {
				if i == 0 {
					for j, c := range in {
						if j < len(n.Cols) {
							m[n.Cols[j]] = c
						}
					}
				}
			}
			// This node's own expressions only: WalkNodes reaches the
			// others, and walking every input's again from each node made
			// nested subqueries cost exponential time.
			n.Exprs(func(e **plan.Expr) {
				plan.Walk(*e, func(x *plan.Expr) {
					if x.Kind == plan.Subquery && x.Sub != nil {
						nodes(x.Sub)
					}
				})
			})
		})
	}
	nodes(p.Root)
	return m
}

// base resolves e to the base column it reads, through casts and
// renaming projections.
func base(p *plan.Plan, alias map[plan.ColumnID]plan.ColumnID, e *plan.Expr) (colKey, *catalog.Column, bool) {
	for e != nil && e.Kind == plan.Cast && len(e.Args) == 1 {
		e = e.Args[0]
	}
	if e == nil || e.Kind != plan.ColRef {
		return colKey{}, nil, false
	}
	id := e.Col
	for range 16 {
		next, ok := alias[id]
		if !ok {
			break
		}
		id = next
	}
	if int(id) >= len(p.Meta.Columns) {
		return colKey{}, nil, false
	}
	m := p.Meta.Col(id)
	if m.Instance < 0 || m.Instance >= len(p.Meta.Instances) {
		return colKey{}, nil, false
	}
	t := p.Meta.Instances[m.Instance].Table
	if t == nil || m.Ordinal >= len(t.Columns) {
		return colKey{}, nil, false
	}
	return colKey{t.Name, m.Ordinal}, &t.Columns[m.Ordinal], true
}

func (l *literals) expr(p *plan.Plan, alias map[plan.ColumnID]plan.ColumnID, x *plan.Expr) {
	if x.Kind == plan.Const && !x.Null {
		if v, err := exec.Parse(x.Typ, x.Value); err == nil {
			l.byType[x.Typ] = append(l.byType[x.Typ], neighbours(v, false)...)
		}
		return
	}
	if x.Kind != plan.Op && x.Kind != plan.Func {
		return
	}
	l.jsonExpr(p, alias, x)
	// A column compared with constants (=, <, LIKE, IN lists, BETWEEN
	// after normalization): the constants, read as the column's type.
	var col *catalog.Column
	var key colKey
	for _, a := range x.Args {
		if k, c, ok := base(p, alias, a); ok {
			key, col = k, c
			break
		}
	}
	if col == nil {
		l.replaceSeeds(p, alias, x)
		return
	}
	pattern := x.Name == plan.OpLike || x.Name == plan.OpNotLike || x.Name == plan.OpILike || x.Name == plan.OpNotILike
	if (x.Name == plan.OpLike || x.Name == plan.OpILike) && len(x.Args) == 2 && x.Args[1].Kind == plan.Const && !x.Args[1].Null {
		if l.likes == nil {
			l.likes = map[colKey][]string{}
		}
		if ps := l.likes[key]; !slices.Contains(ps, x.Args[1].Value) {
			l.likes[key] = append(ps, x.Args[1].Value)
		}
	}
	l.regexSamples(key, x)
	for _, a := range x.Args {
		if a.Kind != plan.Const && l.folds {
			// A constant expression (date '1996-01-01' + interval
			// '1' year): its value, read as the column's type.
			for _, v := range constAsColumn(col, a) {
				nb := neighbours(v, false)
				l.exact[key] = append(l.exact[key], nb[0])
				if !arithmetic(x) {
					l.compared[key] = append(l.compared[key], nb[0])
				}
				l.byCol[key] = append(l.byCol[key], nb...)
				l.byType[col.Type] = append(l.byType[col.Type], nb...)
			}
			continue
		}
		if a.Kind != plan.Const || a.Null {
			continue
		}
		v, err := exec.Parse(col.Type, a.Value)
		if l.folds && col.Type == catalog.Timestamp && isTimestamptz(specOf(*col)) {
			// An instant, where it names its offset.
			v, err = exec.ParseTimestamptz(a.Value)
		}
		if err != nil {
			continue
		}
		nb := neighbours(v, pattern)
		l.exact[key] = append(l.exact[key], nb[0])
		if !arithmetic(x) {
			l.compared[key] = append(l.compared[key], nb[0])
		}
		l.byCol[key] = append(l.byCol[key], nb...)
	}
}

// arithmetic reports whether x computes a value from its arguments
// rather than comparing them: 1 in l_extendedprice * (1 - l_discount) is
// no value l_discount is meant to hold (written in by a literal base, it
// made every volume zero and TPC-H's query 8 divide by their sum).
func arithmetic(x *plan.Expr) bool {
	if x.Kind == plan.Func {
		return true
	}
	switch x.Name {
	case plan.OpAdd, plan.OpSub, plan.OpMul, plan.OpDiv, plan.OpMod, plan.OpConcat, plan.OpNeg, plan.OpBitAnd, plan.OpBitOr, plan.OpBitXor:
		return true
	}
	return false
}

// neighbours returns v and values just beside it: ±1 for numbers and
// dates, and for text a prefix, an extension and a case change; for a
// LIKE pattern, strings that match it and strings that just miss.
func neighbours(v exec.Value, pattern bool) []exec.Value {
	out := []exec.Value{v}
	switch v.K {
	case exec.KInt:
		out = append(out, exec.Int(v.I-1), exec.Int(v.I+1))
	case exec.KDate:
		out = append(out, exec.Date(v.I-1), exec.Date(v.I+1))
	case exec.KTimestamp:
		out = append(out, timestampNeighbours(v)...)
	case exec.KNumeric:
		s := v.String()
		for _, d := range []string{"1", "-1", "0.5", "-0.5"} {
			if n, err := exec.Numeric(addDecimal(s, d)); err == nil {
				out = append(out, n)
			}
		}
	case exec.KFloat:
		out = append(out, exec.Float(v.F-1), exec.Float(v.F+1), exec.Float(v.F+0.5))
	case exec.KText:
		s := v.S
		if exec.IsCanonicalUUID(s) {
			// A uuid column keeps only canonical uuids (fitTo): the
			// uuids just below and above.
			out = append(out, uuidNeighbours(s)...)
		}
		if pattern {
			match := strings.NewReplacer("%", "", "_", "a", `\`, "").Replace(s)
			long := strings.NewReplacer("%", "zz", "_", "b", `\`, "").Replace(s)
			out = []exec.Value{exec.Text(match), exec.Text(long), exec.Text(strings.ToUpper(match)),
				exec.Text(strings.ToLower(long)), exec.Text(s)}
			if len(match) > 0 {
				out = append(out, exec.Text(dropLastRune(match)), exec.Text("q"+match))
			}
			return out
		}
		out = append(out, exec.Text(s+"x"), exec.Text(strings.ToUpper(s)), exec.Text(strings.ToLower(s)))
		if len(s) > 0 {
			out = append(out, exec.Text(dropLastRune(s)))
		}
	}
	return out
}

// uuidNeighbours are the canonical uuids one below and one above u in
// its last hex digit (none past the ends).
func uuidNeighbours(u string) []exec.Value {
	const hexDigits = "0123456789abcdef"
	i := strings.IndexByte(hexDigits, u[len(u)-1])
	var out []exec.Value
	if i > 0 {
		out = append(out, exec.Text(u[:len(u)-1]+hexDigits[i-1:i]))
	}
	if i >= 0 && i < 15 {
		out = append(out, exec.Text(u[:len(u)-1]+hexDigits[i+1:i+2]))
	}
	return out
}

// addDecimal adds two decimal strings exactly.
func addDecimal(a, b string) string {
	x, err1 := exec.Numeric(a)
	y, err2 := exec.Numeric(b)
	if err1 != nil || err2 != nil {
		return a
	}
	return new(big.Rat).Add(x.R, y.R).FloatString(int(max(x.Scale, y.Scale)))
}

// dropLastRune is s without its last character: cutting its last byte
// instead would leave a multibyte character's lead byte, a string
// PostgreSQL refuses (invalid byte sequence for encoding "UTF8").
func dropLastRune(s string) string {
	_, n := utf8.DecodeLastRuneInString(s)
	return s[:len(s)-n]
}
