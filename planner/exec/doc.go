// Package exec evaluates a normalized logical plan over a small in-memory
// database, with the semantics the planner assumes (PostgreSQL's): bag
// semantics, three-valued logic, NULL ordering, C-collation text. It exists
// so that two plans can be run on the same database and their results
// compared (window frames, navigation functions, string_agg, substr and
// date() included, each checked against PostgreSQL by
// TestDifferentialPostgres; dates, timestamps and intervals as
// datetime.go lists, checked by TestDifferentialDatetime; char(n) as
// bpchar.go says, checked by TestDifferentialBpchar; PostgreSQL's
// regular expressions (~, ~*, SIMILAR TO, regexp_replace, regexp_like,
// substring FROM a pattern) rewritten from its ARE flavour as regex.go
// says, checked by TestRegexText and TestRegexFuzzPG; uuid as its
// canonical text, checked by TestDifferentialUUID; jsonb documents and
// ->, ->>, @>, <@, ?, checked by TestJSONBText and
// TestDifferentialJSONB); anything it
// cannot evaluate exactly is reported as
// ErrCannotExecute rather than guessed, because a guessed result could
// "refute" an equivalence that holds. Volatile functions
// (sqltext.VolatileFuncs: random(), clock_timestamp(), ...) always cannot
// execute: any value would be made up.
//
// # SQLite
//
// ExecuteWith with Options{Dialect: catalog.SQLite} models SQLite instead,
// for plans of the sqlite dialect. The planner already encodes two SQLite
// rules in the plan, so the executor reads them from there: LIKE is
// planned as ILIKE (ASCII case-insensitive), and ORDER BY keys carry
// NULLS FIRST for ASC and NULLS LAST for DESC. Every other difference is
// decided here (checked against SQLite by TestDifferentialSQLite):
//
//	construct                       SQLite mode
//	stored numbers                  modelled: INTEGER when whole, else REAL (NUMERIC affinity; 20.00 is 20)
//	numeric literals                modelled: 2.5 and 2.0 are REAL, 2 INTEGER
//	dates, timestamps               modelled: stored and compared as text
//	int / int, int % int            modelled: truncating INTEGER; by zero is NULL, not an error
//	+ - * overflow                  modelled: the result becomes REAL; sum() overflow is an error
//	REAL % x                        modelled: operands cast to INTEGER, REAL result
//	text in arithmetic              modelled: its numeric prefix, else 0
//	comparison affinity             modelled: a column's (or CAST's, or scalar subquery's)
//	                                affinity converts the other operand: numeric text to a
//	                                number, a number to text; computed values have none
//	mixed-type comparison, MIN/MAX  modelled: NULL < numbers < text; text bytewise (BINARY)
//	booleans                        modelled: 0/1 integers in arithmetic, comparison, output
//	WHERE on a non-boolean          modelled: true when its number is non-zero
//	LIKE                            modelled: no escape character; operands as text
//	|| and text functions           modelled: numbers as SQLite's text (REAL 20 is "20.0")
//	avg, sum                        modelled: avg always REAL; sum INTEGER over INTEGERs, else REAL
//	round                           modelled: always REAL, half away from zero
//	max(a, b), min(a, b)            modelled: NULL if any argument is NULL
//	scalar subquery of several rows modelled: the first row; nondeterministic unless ordered
//	negative LIMIT / OFFSET         modelled: no limit / offset 0
//	bare columns in aggregates      cannot execute when the group's values differ (any_value);
//	                                SQLite takes them from the min/max row, not modelled
//	substr                          modelled: negative start counts from the end, 0 shortens
//	date(X)                         modelled for a valid date with an optional time; modifiers,
//	                                Julian days and rolled-over days cannot execute
//	group_concat, total             modelled; group_concat's order-dependent results are
//	                                nondeterministic
//	other functions (strftime,      cannot execute
//	julianday, ...)
package exec
