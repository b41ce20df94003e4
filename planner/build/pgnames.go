package build

import "slices"

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

// pgHasType says whether PostgreSQL has a type called name (its typname:
// the grammar turns the SQL standard's spellings, integer or double
// precision, into pg_catalog.int4 and pg_catalog.float8).
func pgHasType(name string) bool {
	return pgListed(pgTypeNames, name)
}
