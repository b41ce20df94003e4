package build

import (
	"slices"
	"strconv"
	"strings"
)

// PostgreSQL has far more functions and types than the planner models. A
// query calling one it has (json_agg, to_tsvector) or casting to one
// (inet, int4range) is valid SQL the planner does not take: unsupported,
// which the judge answers as unknown with the reason. Only a name
// PostgreSQL 15's pg_catalog lacks (pgnames_pg15.go, generated and
// checked by TestPgNamesMatchCatalog) is "does not exist", an error the
// engine would raise too.

// pgListed says whether the sorted list holds name.
func pgListed(list []string, name string) bool {
	_, ok := slices.BinarySearch(list, name)
	return ok
}

// pgHasCallable says whether PostgreSQL has a plain function or an
// aggregate called name, which a call without OVER may name.
func pgHasCallable(name string) bool {
	return pgListed(pgPlainFuncs, name) || pgListed(pgAggFuncs, name)
}

// pgHasWindowable says whether PostgreSQL has a window function or an
// aggregate called name, which a call with OVER may name.
func pgHasWindowable(name string) bool {
	return pgListed(pgWindowFuncs, name) || pgListed(pgAggFuncs, name)
}

// pgLacksModelled says whether name is a function the planner models
// for SQLite (total, group_concat, ifnull, iif, strftime, ...) that
// PostgreSQL 15 does not have, any_value included (PostgreSQL 16's):
// planning it in the postgres dialect would judge a query the engine
// refuses.
func pgLacksModelled(name string) bool {
	_, scalar := scalarFuncTypes[name]
	return (aggFuncs[name] || scalar) && !pgHasCallable(name) && !pgListed(pgWindowFuncs, name)
}

// pgHasType says whether PostgreSQL has a type called name (its typname:
// the grammar turns the SQL standard's spellings, integer or double
// precision, into pg_catalog.int4 and pg_catalog.float8).
func pgHasType(name string) bool {
	return pgListed(pgTypeNames, name)
}

// schemaHasType says whether the schema declares a type called name that
// a query may cast to: one a column is declared with (an enum, say), a
// domain, or a table's row type. The schema keeps no list of the types
// its DDL created, so one no column uses is not found.
func (b *builder) schemaHasType(name string) bool {
	base := func(typ string) string {
		typ = strings.ToLower(typ)
		if i := strings.IndexAny(typ, "(["); i >= 0 {
			typ = typ[:i]
		}
		if i := strings.LastIndexByte(typ, '.'); i >= 0 {
			typ = typ[i+1:]
		}
		return strings.Trim(strings.TrimSpace(typ), `"`)
	}
	for _, t := range b.schema.Tables {
		if base(t.Name) == name {
			return true
		}
		for _, c := range t.Columns {
			if base(c.TypeSQL) == name || c.Domain != "" && base(c.Domain) == name {
				return true
			}
		}
	}
	return false
}

// pgTakesArgs says whether some form of PostgreSQL's function name takes
// n arguments (pgArgCounts); a call of a name it has with a count none
// takes fails there with "function ... does not exist", and is no valid
// query the planner merely does not model.
func pgTakesArgs(name string, n int) bool {
	enc, ok := pgArgCounts[name]
	if !ok {
		return false
	}
	for len(enc) > 0 {
		span := enc
		if i := strings.IndexByte(enc, ','); i >= 0 {
			span, enc = enc[:i], enc[i+1:]
		} else {
			enc = ""
		}
		lo, hi, ranged := strings.Cut(span, "-")
		l, err := strconv.Atoi(lo)
		if err != nil || n < l {
			continue
		}
		if !ranged {
			if n == l {
				return true
			}
			continue
		}
		if hi == "" {
			return true
		}
		if h, err := strconv.Atoi(hi); err == nil && n <= h {
			return true
		}
	}
	return false
}

// pgArityErr is the error for a call of PostgreSQL's function name with
// n arguments, which no form of it takes, or nil when one does.
func (b *builder) pgArityErr(name string, n int, loc int32) error {
	if pgTakesArgs(name, n) || b.castCall(name, n) {
		return nil
	}
	return b.errf(loc, "function %s does not exist with %d arguments", name, n)
}

// castCall says whether name(x) may be the cast x::name, which
// PostgreSQL reads a one-argument call of a type's name as when no
// function takes it (int4range('[1,2)'), an enum's name).
func (b *builder) castCall(name string, n int) bool {
	return n == 1 && (pgHasType(name) || b.schemaHasType(name))
}
