package sqltext

// Function names that decide a query's meaning by name alone (issue 18,
// cause 13): the planner reads them to refuse a query and to keep a call
// from being merged or moved; the relay reads them to classify a
// statement, parsed or read by its lexer alone, without linking the
// planner.

// VolatileFuncs are the functions, of those a plan may call, whose value
// can differ between two calls in one statement: PostgreSQL's
// pg_proc.provolatile = 'v' (checked by the planner's
// TestVolatileFuncsMatchPostgres) and SQLite's non-deterministic
// functions. now(), current_timestamp and statement_timestamp() are
// stable, not volatile: one value throughout a statement, so they are not
// listed. A plan that calls one of these has no single result to compare:
// it is neither merged, duplicated nor moved by a rewrite, and the judge
// proves nothing about it (equivalence.volatileCall).
var VolatileFuncs = map[string]bool{
	// PostgreSQL
	"random": true, "random_normal": true, "setseed": true, "gen_random_uuid": true, "uuid_generate_v1": true,
	"uuid_generate_v1mc": true, "uuid_generate_v4": true, "clock_timestamp": true, "timeofday": true,
	"nextval": true, "setval": true, "currval": true, "lastval": true, "set_config": true,
	"pg_advisory_lock": true, "pg_try_advisory_lock": true, "pg_advisory_unlock": true, "pg_sleep": true,
	"pg_notify": true, "dblink": true,
	// SQLite
	"randomblob": true, "changes": true, "total_changes": true, "last_insert_rowid": true,
}

// SideEffectFuncs are the volatile functions that change state beyond
// the query's result: a sequence, a setting, a lock, a notification. A
// query calling one is refused, like a data-modifying statement.
var SideEffectFuncs = map[string]bool{
	"nextval": true, "setval": true, "set_config": true, "pg_advisory_lock": true, "pg_try_advisory_lock": true,
	"pg_advisory_unlock": true, "pg_notify": true, "dblink": true,
	"setseed": true,
}
