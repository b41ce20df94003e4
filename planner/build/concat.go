package build

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// concatOperands checks l || r against PostgreSQL's operators: || is
// text || text, anynonarray || text or text || anynonarray (the result
// text, each operand in its output form), so one side must be text (a
// quoted literal or NULL counts: it resolves to text); int || int has no
// operator (42883). jsonb || jsonb merges and bytea || bytea is bytea,
// which the executor does not model, so json and bytea operands are
// refused. SQLite's || concatenates anything.
func (b *builder) concatOperands(l, r *plan.Expr, pos int32) error {
	if b.schema.Dialect == catalog.SQLite {
		return nil
	}
	for _, x := range []*plan.Expr{l, r} {
		if x.Typ == catalog.JSON || x.Typ == catalog.Bytes {
			return b.unsupported(pos, "operator || on json or bytea")
		}
	}
	textual := func(t catalog.Type) bool {
		return t == catalog.Text || t == catalog.Null || t == catalog.Unknown
	}
	if !textual(l.Typ) && !textual(r.Typ) {
		return b.errf(pos, "operator does not exist: %s || %s", typeWord(l.Typ), typeWord(r.Typ))
	}
	return nil
}

// typeWord names a type family for an error message.
func typeWord(t catalog.Type) string {
	switch t {
	case catalog.Int:
		return "integer"
	case catalog.Numeric:
		return "numeric"
	case catalog.Float:
		return "double precision"
	case catalog.Bool:
		return "boolean"
	case catalog.Date:
		return "date"
	case catalog.Timestamp:
		return "timestamp"
	case catalog.Time:
		return "time"
	case catalog.Interval:
		return "interval"
	case catalog.UUID:
		return "uuid"
	}
	return "unknown"
}
