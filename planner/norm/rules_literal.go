package norm

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// canonicalLiteral, on PostgreSQL: a typed literal is written as
// PostgreSQL writes its value, so that one value spelled apart is one
// constant (issue 33, item 4):
//
//	d = '2020-1-1'                      ⇒ d = '2020-01-01'::date
//	u = 'A0EEBC99…'  (u a uuid)         ⇒ u = 'a0eebc99-…'::uuid
//	b = 'A'          (b a bytea)        ⇒ b = '\x41'::bytea
//	r = '[1,2]'      (r an int4range)   ⇒ r = '[1,3)'
//	ip = '10.0.0.1/32' (ip an inet)     ⇒ ip = '10.0.0.1'
//
// PostgreSQL reads a quoted literal beside a typed operand with that
// type's input function, so the literal is that value whichever way it
// is spelled. exec.CanonicalLiteral reads the spellings it is sure of;
// any other stays as written, and the rules that compare constants by
// their text (contradictoryEqualities, the prover's predicates) leave
// it undecided. A range or inet literal keeps its text type (the planner
// has no family for them): only its text changes.
func canonicalLiteral(e *plan.Expr, base func(*plan.Expr) string) (*plan.Expr, bool) {
	switch {
	case e.Kind == plan.Const && !e.Null && hasCanonicalText(e.Typ):
		if v, ok := exec.CanonicalLiteral(e.Typ, "", e.Value); ok && v != e.Value {
			return plan.NewConst(e.Typ, v), true
		}
	case e.Kind == plan.Op && len(e.Args) == 2 && flipped[e.Name] != "":
		args := []*plan.Expr{e.Args[0], e.Args[1]}
		fired := false
		for i := 0; i < 2; i++ {
			c, other := args[i], args[1-i]
			if c.Kind != plan.Const || c.Null || c.Typ != catalog.Text || other.Kind == plan.Const {
				continue
			}
			switch other.Typ {
			case catalog.UUID, catalog.Bytes:
				if v, ok := exec.CanonicalLiteral(other.Typ, "", c.Value); ok {
					args[i], fired = plan.NewConst(other.Typ, v), true
				}
			case catalog.Unknown:
				if v, ok := exec.CanonicalLiteral(catalog.Unknown, base(other), c.Value); ok && v != c.Value {
					args[i], fired = plan.NewConst(c.Typ, v), true
				}
			}
		}
		if fired {
			return plan.NewOp(e.Name, e.Typ, args...), true
		}
	}
	return e, false
}

// hasCanonicalText says whether constants of t are compared by a text
// exec.CanonicalLiteral writes (and so may be spelled apart).
func hasCanonicalText(t catalog.Type) bool {
	switch t {
	case catalog.Date, catalog.Timestamp, catalog.Time, catalog.UUID, catalog.Bytes:
		return true
	}
	return false
}

// canonicalText says whether a non-NULL constant of one of the types of
// hasCanonicalText is written in its canonical form, so that it holds a
// value different from another such constant exactly when their texts
// differ; a date left as 'Jan 1, 2020' (a spelling not read) may equal
// '2020-01-01'. Constants of other types are left to the caller's
// identity test (plan.Metadata.IdentityEq): true.
func canonicalText(c *plan.Expr) bool {
	if !hasCanonicalText(c.Typ) {
		return true
	}
	v, ok := exec.CanonicalLiteral(c.Typ, "", c.Value)
	return ok && v == c.Value
}

// literalBase is the declared base type of e where its family is
// Unknown (int4range, inet), or "".
func (z *normalizer) literalBase(e *plan.Expr) string {
	if e.Kind != plan.ColRef || z.p.Meta == nil {
		return ""
	}
	return z.p.Meta.Domain(e.Col).Base
}
