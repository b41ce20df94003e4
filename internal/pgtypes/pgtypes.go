// Package pgtypes holds what several layers know of PostgreSQL's built-in
// types: their OIDs (pg_type.oid, fixed across versions) and the spelling
// of the special float values. The binder (equivalence/bind), the catalog
// (planner/pgcatalog), the executor and the database-free server read
// them here instead of each keeping a copy.
package pgtypes

import "math"

// OIDs of the built-in types pgequiv names.
const (
	Bool        = 16
	Bytea       = 17
	Char        = 18
	Name        = 19
	Int8        = 20
	Int2        = 21
	Int4        = 23
	Text        = 25
	OID         = 26
	JSON        = 114
	Float4      = 700
	Float8      = 701
	Unknown     = 705
	Bpchar      = 1042
	Varchar     = 1043
	Date        = 1082
	Time        = 1083
	Timestamp   = 1114
	Timestamptz = 1184
	Interval    = 1186
	Numeric     = 1700
	UUID        = 2950
	JSONB       = 3802
)

// SpecialFloat is how float8out and float4out spell f when it is NaN or
// infinite; ok is false for a finite f, whose digits depend on the type.
func SpecialFloat(f float64) (text string, ok bool) {
	switch {
	case math.IsNaN(f):
		return "NaN", true
	case math.IsInf(f, 1):
		return "Infinity", true
	case math.IsInf(f, -1):
		return "-Infinity", true
	}
	return "", false
}
