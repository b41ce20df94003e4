package build

import (
	"strconv"
	"strings"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

func (b *builder) typeCast(tc *pg.TypeCast, sc *scope, st *aggState) (*plan.Expr, error) {
	if ae := tc.Arg.GetAArrayExpr(); ae != nil && len(tc.TypeName.GetArrayBounds()) > 0 {
		return b.arrayCast(tc, ae, sc, st)
	}
	arg, err := b.expr(tc.Arg, sc, st)
	if err != nil {
		return nil, err
	}
	name := typeNameOf(tc.TypeName)
	if len(tc.TypeName.GetArrayBounds()) > 0 {
		// An array type is none of the families (catalog: an array
		// column is of Unknown type): only NULL casts to one.
		if arg.Kind == plan.Const && arg.Null && b.schema.Dialect == catalog.Postgres {
			e := plan.NewNull(catalog.Unknown)
			e.Pos = tc.Location
			return e, nil
		}
		return nil, b.unsupported(tc.Location, "a cast to an array type")
	}
	t := catalog.TypeFromName(name)
	if len(tc.TypeName.Names) > 0 && name == "interval" {
		t = catalog.Interval
	}
	if e := b.extCast(name, arg); e != nil {
		return e, nil
	}
	if t == catalog.Unknown {
		if b.schema.Dialect == catalog.Postgres && (pgHasType(name) || b.schemaHasType(name)) {
			return nil, b.unsupported(tc.Location, "type "+strconv.Quote(name))
		}
		return nil, b.errf(tc.Location, "type %q does not exist", name)
	}
	// $1::t makes the parameter a t (PostgreSQL types it so at Prepare).
	typeParam(arg, t)
	if len(tc.TypeName.Typmods) > 0 && b.schema.Dialect == catalog.Postgres {
		// A type modifier changes the value (numeric(10,2) rounds,
		// varchar(3) truncates, interval '3' month reads months), so it
		// is part of the cast. SQLite ignores modifiers.
		mod, folded, err := b.typmod(tc, name, arg)
		if err != nil {
			return nil, err
		}
		if folded != nil {
			arg = folded
		} else if mod != "" {
			return &plan.Expr{Kind: plan.Cast, Typ: t, Value: mod, Args: []*plan.Expr{arg}, Pos: tc.Location}, nil
		}
	}
	if b.schema.Dialect == catalog.Postgres {
		// A cast inside a family is an operation unless it is an
		// identity on the operand's exact type (exacttype.go).
		value, identity, foldable := b.exactCast(CanonicalType(name, false), arg)
		if identity {
			return arg, nil
		}
		if value != "" && !foldable {
			return &plan.Expr{Kind: plan.Cast, Typ: t, Value: value, Args: []*plan.Expr{arg}, Pos: tc.Location}, nil
		}
	}
	if arg.Kind == plan.Const {
		if c, ok := CoerceConst(arg, t); ok {
			c.Pos = tc.Location
			return c, nil
		}
	}
	if arg.Typ == t && (b.schema.Dialect != catalog.SQLite || b.sqliteCastIdentity(arg, t)) {
		return arg, nil
	}
	return &plan.Expr{Kind: plan.Cast, Typ: t, Args: []*plan.Expr{arg}, Pos: tc.Location}, nil
}

// sqliteCastIdentity says CAST(e AS t), e of t's family, returns e's
// value in SQLite. A column's type there is an affinity, not a
// guarantee: an INTEGER or REAL column of an ordinary table may hold
// 'abc' (CAST: 0) and an INTEGER one 5.5 (CAST AS INTEGER: 5). A TEXT
// column stores every number as text, so a cast to text keeps it.
func (b *builder) sqliteCastIdentity(e *plan.Expr, t catalog.Type) bool {
	switch t {
	case catalog.Text:
		return true
	case catalog.Int:
		return b.integerOnlyColumn(e)
	}
	return false
}

// integerOnlyColumn reports whether e is a base column the engine keeps
// to integers (catalog.Table.IntegerOnly). In SQLite CAST(x AS INTEGER)
// of any other integer-typed x is no identity: x may hold 5.5 (cast: 5)
// or 'abc' (cast: 0).
func (b *builder) integerOnlyColumn(e *plan.Expr) bool {
	if e.Kind != plan.ColRef {
		return false
	}
	m := b.meta.Col(e.Col)
	if m.Instance < 0 || m.Instance >= len(b.meta.Instances) || b.meta.Instances[m.Instance].Table == nil {
		return false
	}
	return b.meta.Instances[m.Instance].Table.IntegerOnly(b.schema.Dialect, m.Ordinal)
}

// intervalFields are the INTERVAL_MASK values of PostgreSQL's
// single-field interval qualifiers (utils/datetime.h).
var intervalFields = map[int32]string{2: "month", 4: "year", 8: "day", 1 << 10: "hour", 1 << 11: "minute", 1 << 12: "second"}

// typmod reads the type modifiers of a cast to name. It returns either a
// literal that already carries the modifier's meaning (interval '3'
// month becomes '3 month'; a short enough text under varchar(n)), or the
// modified type's text for the Cast node, such as numeric(10,2).
func (b *builder) typmod(tc *pg.TypeCast, name string, arg *plan.Expr) (string, *plan.Expr, error) {
	mods := make([]int32, len(tc.TypeName.Typmods))
	for i, m := range tc.TypeName.Typmods {
		c := m.GetAConst()
		if c == nil || c.GetIval() == nil {
			return "", nil, b.unsupported(tc.Location, "a type modifier that is not an integer")
		}
		mods[i] = c.GetIval().Ival
	}
	isText := arg.Kind == plan.Const && !arg.Null && arg.Typ == catalog.Text
	switch name {
	case "interval":
		unit, ok := intervalFields[mods[0]]
		if len(mods) == 1 && ok && isText {
			if _, err := strconv.ParseInt(strings.TrimSpace(arg.Value), 10, 64); err == nil {
				return "", plan.NewConst(catalog.Text, strings.TrimSpace(arg.Value)+" "+unit), nil
			}
		}
		return "", nil, b.unsupported(tc.Location, "this interval qualifier")
	case "varchar":
		if len(mods) == 1 && isText && int32(utf8.RuneCountInString(arg.Value)) <= mods[0] {
			return "", arg, nil
		}
	}
	parts := make([]string, len(mods))
	for i, m := range mods {
		parts[i] = strconv.Itoa(int(m))
	}
	return name + "(" + strings.Join(parts, ",") + ")", nil, nil
}

// CoerceConst converts a literal to type t when the conversion is exact;
// ok is false when it is not (the caller keeps an explicit cast).
func CoerceConst(c *plan.Expr, t catalog.Type) (*plan.Expr, bool) {
	if c.Null {
		return plan.NewNull(t), true
	}
	v := strings.TrimSpace(c.Value)
	switch t {
	case catalog.Int:
		if i, err := strconv.ParseInt(v, 10, 64); err == nil {
			return plan.NewConst(t, strconv.FormatInt(i, 10)), true
		}
		if c.Typ == catalog.Text {
			return nil, false
		}
	case catalog.Numeric, catalog.Float:
		if c.Typ == catalog.Text || c.Typ.IsNumeric() {
			if f, ok := canonicalNumber(v); ok {
				return plan.NewConst(t, f), true
			}
		}
	case catalog.Text:
		if c.Typ == catalog.Text || c.Typ.IsNumeric() {
			return plan.NewConst(t, c.Value), true
		}
	case catalog.Bool:
		switch strings.ToLower(v) {
		case "t", "true", "yes", "y", "on", "1":
			return plan.NewBool(true), true
		case "f", "false", "no", "n", "off", "0":
			return plan.NewBool(false), true
		}
	case catalog.Date, catalog.Timestamp, catalog.Time:
		if c.Typ == catalog.Text || c.Typ == t {
			return plan.NewConst(t, v), true
		}
	}
	if c.Typ == t {
		return c, true
	}
	return nil, false
}

// canonicalNumber writes a decimal literal without redundant zeros, so
// 3.50 and 3.5 compare equal as numbers.
func canonicalNumber(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return "", false
	}
	if strings.ContainsAny(s, "eE") {
		f, _ := strconv.ParseFloat(s, 64)
		return strconv.FormatFloat(f, 'g', -1, 64), true
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+"), "0")
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "" || s[0] == '.' {
		s = "0" + s
	}
	if neg && s != "0" {
		s = "-" + s
	}
	return s, true
}
