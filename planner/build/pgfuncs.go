package build

import (
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// pgFuncs are PostgreSQL functions planned in the postgres dialect only,
// each typed by pgFuncType from its arguments as PostgreSQL resolves the
// call. All are strict; none is volatile (timezone() is immutable, the
// others too), so two calls on the same arguments are one value. The
// executor computes those it models exactly and refuses the rest.
var pgFuncs = map[string]bool{"timezone": true, "sin": true, "cos": true, "trunc": true, "div": true,
	"lpad": true, "rpad": true, "encode": true, "decode": true, "regexp_replace": true, "regexp_like": true}

// pgFunc plans a call of one of pgFuncs; ok is false for any other name
// and in the sqlite dialect.
func (b *builder) pgFunc(name string, args []*plan.Expr, pos int32) (e *plan.Expr, ok bool, err error) {
	if b.schema.Dialect != catalog.Postgres || !pgFuncs[name] {
		return nil, false, nil
	}
	t, why := b.pgFuncType(name, args)
	if why != "" {
		return nil, true, b.unsupported(pos, "function "+name+" "+why)
	}
	return &plan.Expr{Kind: plan.Func, Name: name, Args: args, Typ: t, Pos: pos}, true, nil
}

// pgFuncType is the result type of name(args), or why the call is not
// planned: a form PostgreSQL rejects, or one whose resolution the planner
// does not follow.
func (b *builder) pgFuncType(name string, args []*plan.Expr) (catalog.Type, string) {
	is := func(i int, ts ...catalog.Type) bool {
		if i >= len(args) {
			return false
		}
		for _, t := range ts {
			typeParam(args[i], t)
			if args[i].Typ == t {
				return true
			}
		}
		return false
	}
	n := len(args)
	switch name {
	case "timezone":
		// timezone(zone, timestamptz) is a timestamp, timezone(zone,
		// timestamp) a timestamptz (x AT TIME ZONE zone).
		if n == 2 && is(0, catalog.Text, catalog.Interval) && timezoneResult(b.tsExact(args[1])) != "" {
			return catalog.Timestamp, ""
		}
		return 0, "of these arguments (a zone and a timestamp or timestamptz)"
	case "sin", "cos":
		if n == 1 && is(0, catalog.Float, catalog.Int, catalog.Numeric) {
			return catalog.Float, ""
		}
		return 0, "of these arguments (a double precision)"
	case "trunc":
		// trunc(double precision), trunc(numeric [, integer]); an integer
		// alone is left out (which one PostgreSQL picks is not followed).
		switch {
		case n == 1 && is(0, catalog.Float):
			return catalog.Float, ""
		case n == 1 && is(0, catalog.Numeric):
			return catalog.Numeric, ""
		case n == 2 && is(0, catalog.Numeric, catalog.Int) && b.isInt4(args[1]):
			return catalog.Numeric, ""
		}
		return 0, "of these arguments"
	case "div":
		if n == 2 && is(0, catalog.Numeric, catalog.Int) && is(1, catalog.Numeric, catalog.Int) {
			return catalog.Numeric, ""
		}
		return 0, "of these arguments (two numerics)"
	case "lpad", "rpad":
		if (n == 2 || n == 3 && is(2, catalog.Text)) && is(0, catalog.Text) && b.isInt4(args[1]) {
			return catalog.Text, ""
		}
		return 0, "of these arguments (text, integer [, text])"
	case "encode":
		// A Bytes literal is a bit string (B'01', X'1F') in PostgreSQL.
		if n == 2 && is(0, catalog.Bytes) && args[0].Kind != plan.Const && is(1, catalog.Text) {
			return catalog.Text, ""
		}
		return 0, "of these arguments (bytea, text)"
	case "decode":
		if n == 2 && is(0, catalog.Text) && is(1, catalog.Text) {
			return catalog.Bytes, ""
		}
		return 0, "of these arguments (text, text)"
	case "regexp_replace":
		// (source, pattern, replacement [, flags]); PostgreSQL 15's
		// forms with a start position and a count are not planned.
		if (n == 3 || n == 4) && is(0, catalog.Text) && is(1, catalog.Text) && is(2, catalog.Text) && (n == 3 || is(3, catalog.Text)) {
			return catalog.Text, ""
		}
		return 0, "of these arguments (text, text, text [, text])"
	case "regexp_like":
		if (n == 2 || n == 3) && is(0, catalog.Text) && is(1, catalog.Text) && (n == 2 || is(2, catalog.Text)) {
			return catalog.Bool, ""
		}
		return 0, "of these arguments (text, text [, text])"
	}
	return 0, "is not known"
}

// timezoneResult is the exact type of timezone(zone, x) for x of exact
// type arg: "" where the planner does not type it.
func timezoneResult(arg string) string {
	switch arg {
	case "timestamp":
		return "timestamptz"
	case "timestamptz":
		return "timestamp"
	}
	return ""
}

// isInt4 says whether e is an integer PostgreSQL passes where an integer
// (int4) parameter is: an int2 or int4 (an int8 has no implicit cast).
func (b *builder) isInt4(e *plan.Expr) bool {
	typeParam(e, catalog.Int)
	t := b.exactType(e)
	return e.Typ == catalog.Int && (t == "int4" || t == "int2")
}

// tsExact is exactType, and "timestamp" for a timestamp literal: a
// literal cast to timestamptz stays a Cast naming it (exactCast).
func (b *builder) tsExact(e *plan.Expr) string {
	if e.Kind == plan.Const && !e.Null && e.Typ == catalog.Timestamp {
		return "timestamp"
	}
	return b.exactType(e)
}
