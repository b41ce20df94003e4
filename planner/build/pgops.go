package build

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// PostgreSQL operators beyond comparison, arithmetic and ||, typed as
// PostgreSQL types them and planned in the postgres dialect only. All are
// strict (NULL in, NULL out) and immutable, so a rule may treat two calls
// on the same operands as one value; the executor computes those it
// models exactly (integer bit operators) and refuses the others.
//
//	i & j, i | j, i # j, ~i   integers only: int2/int4/int8 (bit strings are not modelled)
//	s ~ p, s ~* p             text; s !~ p ⇒ NOT (s ~ p), s !~* p ⇒ NOT (s ~* p)
//	s SIMILAR TO p [ESCAPE e] text; NOT SIMILAR TO ⇒ NOT (s SIMILAR TO p)
//	j -> k, j ->> k           json or jsonb with a text or integer key: json(b), text
//	a @> b, a <@ b            jsonb with jsonb, or arrays of one element type: bool
//	j ? k                     jsonb with text: bool

// pgBinaryOp plans l op r for the operators above; ok is false for any
// other operator, and in the sqlite dialect.
func (b *builder) pgBinaryOp(op string, l, r *plan.Expr, pos int32) (e *plan.Expr, ok bool, err error) {
	if b.schema.Dialect != catalog.Postgres {
		return nil, false, nil
	}
	switch op {
	case plan.OpBitAnd, plan.OpBitOr, plan.OpBitXor:
		typeParams(l, r)
		typeParams(r, l)
		// A bare NULL beside an integer is an integer NULL.
		if !intOrNull(l) || !intOrNull(r) || l.Typ != catalog.Int && r.Typ != catalog.Int {
			return nil, true, b.unsupported(pos, "operator "+op+" on "+l.Typ.String()+" and "+r.Typ.String())
		}
		return plan.NewOp(op, catalog.Int, l, r), true, nil
	case "~", "!~", "~*", "!~*":
		typeParam(l, catalog.Text)
		typeParam(r, catalog.Text)
		if l.Typ != catalog.Text || r.Typ != catalog.Text {
			return nil, true, b.unsupported(pos, "operator "+op+" on "+l.Typ.String()+" and "+r.Typ.String())
		}
		name := strings.TrimPrefix(op, "!")
		e := plan.NewOp(name, catalog.Bool, l, r)
		if name != op {
			e = plan.NewOp(plan.OpNot, catalog.Bool, e)
		}
		return e, true, nil
	case plan.OpJSONField, plan.OpJSONText:
		typeParam(l, catalog.JSON)
		if l.Typ != catalog.JSON || (r.Typ != catalog.Text && !b.isInt4(r)) {
			return nil, true, b.unsupported(pos, "operator "+op+" on "+l.Typ.String()+" and "+r.Typ.String())
		}
		t := catalog.JSON
		if op == plan.OpJSONText {
			t = catalog.Text
		}
		return plan.NewOp(op, t, l, r), true, nil
	case plan.OpContains, plan.OpContainedBy:
		return b.containment(op, l, r, pos)
	case plan.OpJSONExists:
		typeParam(r, catalog.Text)
		if b.jsonKind(l) != "jsonb" || r.Typ != catalog.Text {
			return nil, true, b.unsupported(pos, "operator ? on these operands")
		}
		return plan.NewOp(op, catalog.Bool, l, r), true, nil
	}
	return nil, false, nil
}

// containment plans a @> b and a <@ b: both jsonb (a quoted literal
// beside a jsonb reads as jsonb), or both arrays of one element type.
func (b *builder) containment(op string, l, r *plan.Expr, pos int32) (*plan.Expr, bool, error) {
	lk, rk := b.jsonKind(l), b.jsonKind(r)
	switch {
	case lk == "jsonb" && rk == "jsonb":
	case lk == "jsonb" && isTextLiteral(r):
		r = &plan.Expr{Kind: plan.Cast, Typ: catalog.JSON, Value: "jsonb", Args: []*plan.Expr{r}, Pos: r.Pos}
	case rk == "jsonb" && isTextLiteral(l):
		l = &plan.Expr{Kind: plan.Cast, Typ: catalog.JSON, Value: "jsonb", Args: []*plan.Expr{l}, Pos: l.Pos}
	default:
		le, re := b.arrayElem(l), b.arrayElem(r)
		if le == "" || le != re {
			return nil, true, b.unsupported(pos, "operator "+op+" on these operands")
		}
	}
	return plan.NewOp(op, catalog.Bool, l, r), true, nil
}

func intOrNull(e *plan.Expr) bool {
	return e.Typ == catalog.Int || e.Kind == plan.Const && e.Null && e.Typ == catalog.Null
}

func isTextLiteral(e *plan.Expr) bool {
	return e.Kind == plan.Const && !e.Null && e.Typ == catalog.Text
}

// jsonKind is "json" or "jsonb" where e's exact type is known to be one
// of them, else "".
func (b *builder) jsonKind(e *plan.Expr) string {
	if e.Typ != catalog.JSON {
		return ""
	}
	switch e.Kind {
	case plan.ColRef:
		if k, ok := b.jsonKinds[e.Col]; ok {
			return k
		}
		if b.meta != nil {
			if base := b.meta.Domain(e.Col).Base; base == "json" || base == "jsonb" {
				return base
			}
		}
	case plan.Cast:
		if e.Value == "json" || e.Value == "jsonb" {
			return e.Value
		}
	case plan.Op:
		if e.Name == plan.OpJSONField {
			return b.jsonKind(e.Args[0])
		}
	}
	return ""
}

// noteJSONKind records VALUES column id (column i of rows) as of one
// exact json type when every row's value is of it or NULL.
func (b *builder) noteJSONKind(id plan.ColumnID, t catalog.Type, rows [][]*plan.Expr, i int) {
	if t != catalog.JSON {
		return
	}
	kind := ""
	for _, r := range rows {
		e := r[i]
		if e.Kind == plan.Const && e.Null {
			continue
		}
		k := b.jsonKind(e)
		if k == "" || kind != "" && k != kind {
			return
		}
		kind = k
	}
	if kind == "" {
		return
	}
	if b.jsonKinds == nil {
		b.jsonKinds = map[plan.ColumnID]string{}
	}
	b.jsonKinds[id] = kind
}

// pgPrefixOp plans ~i (integer bitwise NOT); ok is false for any other
// prefix operator and in the sqlite dialect.
func (b *builder) pgPrefixOp(op string, r *plan.Expr, pos int32) (*plan.Expr, bool, error) {
	if b.schema.Dialect != catalog.Postgres || op != plan.OpBitNot {
		return nil, false, nil
	}
	if r.Typ != catalog.Int {
		return nil, true, b.unsupported(pos, "prefix operator ~ on "+r.Typ.String())
	}
	return plan.NewOp(plan.OpBitNot, catalog.Int, r), true, nil
}

// similar plans l [NOT] SIMILAR TO p [ESCAPE e], which PostgreSQL parses
// as l ~ similar_to_escape(p[, e]) (!~ for NOT).
func (b *builder) similar(a *pg.A_Expr, opName string, l *plan.Expr, sc *scope, st *aggState) (*plan.Expr, error) {
	fc := a.Rexpr.GetFuncCall()
	if b.schema.Dialect != catalog.Postgres || fc == nil || len(fc.Args) < 1 || len(fc.Args) > 2 {
		return nil, b.unsupported(a.Location, "SIMILAR TO")
	}
	args, err := b.exprs(fc.Args, sc, st)
	if err != nil {
		return nil, err
	}
	typeParam(l, catalog.Text)
	for _, x := range args {
		typeParam(x, catalog.Text)
	}
	for _, x := range append([]*plan.Expr{l}, args...) {
		if x.Typ != catalog.Text {
			return nil, b.unsupported(a.Location, "SIMILAR TO on "+x.Typ.String())
		}
	}
	e := plan.NewOp(plan.OpSimilar, catalog.Bool, append([]*plan.Expr{l}, args...)...)
	e.Pos = a.Location
	if opName == "!~" {
		e = plan.NewOp(plan.OpNot, catalog.Bool, e)
		e.Pos = a.Location
	}
	return e, nil
}
