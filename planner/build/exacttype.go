package build

import (
	"strconv"
	"strings"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Exact types. catalog.Type is a coarse family (Int, Float, Text, ...);
// a cast inside a family still changes values in PostgreSQL: float4
// rounds to single precision, int2/int4 fail out of range, "char" keeps
// one byte, name 63 bytes, bpchar compares blank-insensitively,
// timestamptz reads an offset as an instant, jsonb normalises. Such a
// cast stays in the plan as a Cast whose Value names the exact target
// (the executor computes it or refuses, the prover keys it apart), and
// is dropped only where it is an identity on the operand's exact type.

// CanonicalType maps a type's spelling (a declared column type or the
// last name of a cast's type) to PostgreSQL's internal name, without a
// modifier: "integer" → "int4", "double precision" → "float8",
// "character varying(10)" → "varchar". It returns "" for names it does
// not know. A lone "char" is the one-byte type "char" (pg_query spells
// the SQL keyword CHAR as bpchar); spelled in a declared type, "char"
// and "character" are bpchar (char(1)).
func CanonicalType(name string, declared bool) string {
	n := strings.Join(strings.Fields(strings.ToLower(name)), " ")
	n = strings.Trim(n, `"`)
	if i := strings.IndexByte(n, '('); i >= 0 {
		rest := ""
		if j := strings.IndexByte(n[i:], ')'); j >= 0 {
			rest = strings.TrimSpace(n[i+j+1:])
		}
		n = strings.TrimSpace(strings.TrimSpace(n[:i]) + " " + rest)
	}
	n = strings.TrimPrefix(n, "pg_catalog.")
	switch n {
	case "smallint", "int2", "smallserial", "serial2":
		return "int2"
	case "int", "integer", "int4", "serial", "serial4":
		return "int4"
	case "bigint", "int8", "bigserial", "serial8":
		return "int8"
	case "real", "float4":
		return "float4"
	case "double precision", "float8", "float", "double":
		return "float8"
	case "numeric", "decimal":
		return "numeric"
	case "text":
		return "text"
	case "varchar", "character varying":
		return "varchar"
	case "bpchar", "character", "nchar":
		return "bpchar"
	case "char":
		if declared {
			return "bpchar"
		}
		return "char"
	case "name":
		return "name"
	case "bool", "boolean":
		return "bool"
	case "date":
		return "date"
	case "timestamp", "timestamp without time zone":
		return "timestamp"
	case "timestamptz", "timestamp with time zone":
		return "timestamptz"
	case "time", "time without time zone":
		return "time"
	case "timetz", "time with time zone":
		return "timetz"
	case "interval":
		return "interval"
	case "bytea":
		return "bytea"
	case "json":
		return "json"
	case "jsonb":
		return "jsonb"
	case "uuid":
		return "uuid"
	}
	return ""
}

// declaredType is the declared type of a table's column that e reads,
// as written; "" for anything else.
func (b *builder) declaredType(e *plan.Expr) string {
	if c := b.declaredColumn(e); c != nil {
		return c.TypeSQL
	}
	return ""
}

// exactType is e's exact PostgreSQL type without a modifier where the
// plan says it ("" where it does not): a column's declared type, an
// integer literal's int4 or int8, a cast's exact target.
func (b *builder) exactType(e *plan.Expr) string {
	switch e.Kind {
	case plan.ColRef:
		return CanonicalType(b.declaredType(e), true)
	case plan.Const:
		switch {
		case e.Null:
			return ""
		case e.Typ == catalog.Int:
			if i, err := strconv.ParseInt(e.Value, 10, 64); err == nil && i == int64(int32(i)) {
				return "int4"
			}
			return "int8"
		case e.Typ == catalog.Numeric:
			return "numeric"
		}
	case plan.Cast:
		if e.Value != "" {
			return CanonicalType(e.Value, false)
		}
	case plan.Op:
		if e.Name == plan.OpSubscript && len(e.Args) == 2 {
			return b.arrayElem(e.Args[0])
		}
	case plan.Func:
		if e.Name == "timezone" && len(e.Args) == 2 {
			return timezoneResult(b.tsExact(e.Args[1]))
		}
	}
	return ""
}

// mayHold reports whether some column or cast inside e has one of the
// exact types in kinds: whether e's value may be of such a type (a float4
// column makes r * 2 a float4, a char(n) column makes a CASE over it
// bpchar).
func (b *builder) mayHold(e *plan.Expr, kinds ...string) bool {
	found := false
	plan.Walk(e, func(x *plan.Expr) {
		if found || (x.Kind != plan.ColRef && x.Kind != plan.Cast) {
			return
		}
		t := b.exactType(x)
		if x.Kind == plan.ColRef && t == "" {
			// A derived table's or a view's column: its type is not
			// followed, so it may be any of them.
			found = true
			return
		}
		for _, k := range kinds {
			if t == k {
				found = true
			}
		}
	})
	return found
}

// exactCast decides a cast without a type modifier to the exact type
// target (CanonicalType of the cast's name) in the postgres dialect. It
// returns the Value the Cast node carries ("" for the family's plain
// cast, which the executor already computes exactly), whether the cast
// is an identity to drop, and, for a literal, whether folding it to a
// constant of the family is exact.
func (b *builder) exactCast(target string, arg *plan.Expr) (value string, identity, foldable bool) {
	if arg.Kind == plan.Const && arg.Null {
		return "", false, true // NULL of any type is NULL
	}
	src := b.exactType(arg)
	if target == "" {
		return "", arg.Typ != catalog.Unknown && arg.Typ == catalog.TypeFromName(target), true
	}
	if src == target {
		return "", true, true
	}
	isConst := arg.Kind == plan.Const && !arg.Null
	switch target {
	case "int8":
		return "", arg.Typ == catalog.Int, true
	case "int4", "int2":
		if src == "int2" || (target == "int4" && src == "int4") {
			return "", true, true
		}
		if isConst && target == "int4" {
			if i, err := strconv.ParseInt(strings.TrimSpace(arg.Value), 10, 64); err == nil && inRange(target, i) {
				return target, false, true
			}
		}
		// A smallint constant stays a cast: the family's constant would
		// compute in int4, where 32767::int2 + 1::int2 raises "smallint
		// out of range".
		return target, false, false
	case "float8":
		if arg.Typ == catalog.Float && !b.mayHold(arg, "float4") {
			return "", true, true
		}
		if arg.Typ == catalog.Float {
			return target, false, false // float4 widened: same value, printed in full
		}
		return "", false, true
	case "float4":
		return target, false, false
	case "numeric":
		// An integer cast to numeric is no identity: 25::numeric / 3 is
		// 8.33..., 25 / 3 is 8.
		return "", arg.Typ == catalog.Numeric, true
	case "text", "varchar":
		if arg.Typ == catalog.Text && !b.mayHold(arg, "bpchar") {
			return "", true, true
		}
		if arg.Typ == catalog.Text {
			return target, false, false // a char(n) loses its padding
		}
		return "", false, true
	case "bpchar":
		return target, false, false
	case "char":
		if isConst && arg.Typ == catalog.Text && len(arg.Value) <= 1 {
			return target, false, true
		}
		return target, false, false
	case "name":
		if isConst && arg.Typ == catalog.Text && len(arg.Value) <= 63 {
			return target, false, true
		}
		return target, false, false
	case "timestamp":
		if src == "timestamptz" {
			return target, false, false // depends on the session's TimeZone
		}
		return "", arg.Typ == catalog.Timestamp, true
	case "timestamptz", "json", "jsonb", "timetz":
		return target, false, false
	case "date":
		if src == "timestamptz" {
			return target, false, false
		}
	}
	return "", arg.Typ == catalog.TypeFromName(target), true
}

// inRange says whether i fits the integer type t.
func inRange(t string, i int64) bool {
	switch t {
	case "int2":
		return i >= -32768 && i <= 32767
	case "int4":
		return i == int64(int32(i))
	}
	return true
}

// realLiterals types the quoted literals of lits compared with ref as
// ref's exact type where folding them into the family's constant would
// change them: PostgreSQL reads r = '0.1' on a real as float4 = float4
// (true for the stored 0.1), unlike r = 0.1 (compared in float8), and
// tz > '2024-01-01 10:00+03' on a timestamptz as that instant, where a
// timestamp constant ignores the offset. The literal becomes an explicit
// cast to the exact type, which no rule folds into a constant.
func (b *builder) realLiterals(ref *plan.Expr, lits []*plan.Expr) {
	if b.schema.Dialect != catalog.Postgres {
		return
	}
	t := b.exactType(ref)
	if t != "float4" && t != "timestamptz" && t != "char" {
		return
	}
	for i, l := range lits {
		if l.Kind == plan.Const && !l.Null && l.Typ == catalog.Text {
			lits[i] = &plan.Expr{Kind: plan.Cast, Typ: ref.Typ, Value: t, Args: []*plan.Expr{l}, Pos: l.Pos}
		}
		if l.Kind == plan.Param && l.Typ == ref.Typ {
			// A parameter compared with such a column is of its exact
			// type, read from its text as a literal would be.
			l.Typ = catalog.Text
			lits[i] = &plan.Expr{Kind: plan.Cast, Typ: ref.Typ, Value: t, Args: []*plan.Expr{l}, Pos: l.Pos}
		}
	}
}
