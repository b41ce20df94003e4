package exec

import "github.com/pgequiv/pgequiv/planner/catalog"

// A uuid is held as the text PostgreSQL prints for it: 32 lower-case hex
// digits grouped 8-4-4-4-12. That text orders as uuid_cmp orders the 16
// bytes (memcmp: hex digits in lower case sort as their values), so =,
// <, ORDER BY, DISTINCT, GROUP BY, its cast to text and || agree with
// PostgreSQL's; a uuid is read only through ParseUUID, which writes the
// canonical form, so two spellings of one uuid are one value.
// PostgreSQL 15 has no min or max of uuid (the planner refuses them).

// ParseUUID reads uuid_in's input (either case, optional braces, a dash
// after any group of four digits) as the canonical text; anything else
// is PostgreSQL's invalid input error.
func ParseUUID(s string) (Value, error) {
	c, ok := literalUUID(s)
	if !ok {
		return Null, queryErr("invalid input syntax for type uuid: %q", s)
	}
	return Text(c), nil
}

// IsCanonicalUUID reports whether s is a uuid in its canonical text:
// the only form a uuid column's value may take here.
func IsCanonicalUUID(s string) bool {
	c, ok := literalUUID(s)
	return ok && c == s
}

// asTyped reads a text value where the plan types the position uuid or
// json(b): a quoted literal beside a uuid or jsonb in coalesce, CASE,
// greatest/least or a set operation takes that type in PostgreSQL
// (coalesce(u, 'A0EEBC99-...') prints the uuid in lower case), but the
// planner leaves the literal text. A uuid is read; a document, whose
// json or jsonb reading the position does not say, cannot execute.
func asTyped(t catalog.Type, v Value) (Value, error) {
	if v.K != KText || v.B {
		return v, nil
	}
	switch t {
	case catalog.UUID:
		return ParseUUID(v.S)
	case catalog.JSON:
		return Null, cannot("text where a json or jsonb value is")
	}
	return v, nil
}
