package judging

import (
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// fileFuncsDDL declares, beside a table, functions of each volatility,
// an overloaded name with one VOLATILE overload, ALTER FUNCTION both
// ways, aggregates, operators and views over them.
const fileFuncsDDL = `
CREATE TABLE t (id int PRIMARY KEY, name text, w int);
CREATE FUNCTION f_imm(a int) RETURNS int LANGUAGE sql IMMUTABLE AS $$SELECT a$$;
CREATE FUNCTION app.f_stable(a int) RETURNS int LANGUAGE sql STABLE AS $$SELECT a$$;
CREATE FUNCTION f_default(a int) RETURNS int LANGUAGE plpgsql AS $$BEGIN INSERT INTO t VALUES (a); RETURN 1; END$$;
CREATE FUNCTION f_over(a int) RETURNS int LANGUAGE sql STABLE AS $$SELECT a$$;
CREATE FUNCTION f_over(a text) RETURNS int LANGUAGE sql VOLATILE AS $$SELECT 1$$;
CREATE FUNCTION f_made_stable(a integer) RETURNS int LANGUAGE sql AS $$SELECT a$$;
ALTER FUNCTION f_made_stable(int4) STABLE;
CREATE FUNCTION f_made_volatile(a int) RETURNS int LANGUAGE sql IMMUTABLE AS $$SELECT a$$;
ALTER FUNCTION f_made_volatile VOLATILE;
CREATE OR REPLACE FUNCTION f_replaced(a int) RETURNS int LANGUAGE sql AS $$SELECT a$$;
CREATE OR REPLACE FUNCTION f_replaced(a int) RETURNS int LANGUAGE sql IMMUTABLE AS $$SELECT a$$;
CREATE FUNCTION lpad(a int) RETURNS int LANGUAGE sql AS $$SELECT a$$;
CREATE FUNCTION w(r t) RETURNS int LANGUAGE sql AS $$INSERT INTO t VALUES (9) RETURNING 1$$;
CREATE FUNCTION name(r t) RETURNS text LANGUAGE sql AS $$SELECT 'x'$$;
CREATE PROCEDURE p_add(a int) LANGUAGE sql AS $$INSERT INTO t VALUES (a)$$;
CREATE AGGREGATE agg_ok(int) (SFUNC = int4pl, STYPE = int);
CREATE AGGREGATE agg_bad(int) (SFUNC = f_default, STYPE = int);
CREATE OPERATOR ### (LEFTARG = int, RIGHTARG = int, FUNCTION = f_default);
CREATE OPERATOR <#> (LEFTARG = int, RIGHTARG = int, FUNCTION = int4pl);
CREATE OPERATOR app.@@@ (LEFTARG = int, RIGHTARG = int, PROCEDURE = app.f_stable);
CREATE VIEW v_ok AS SELECT id, upper(name) AS u FROM t;
CREATE VIEW v_bad AS SELECT id, f_default(id) AS x FROM t;
CREATE VIEW v_bad2 AS SELECT id FROM v_bad;
CREATE TABLE app.t_app (id int PRIMARY KEY);
`

// TestFileFunctionsClassify: in files mode a call is a side effect
// unless it is a read-only built-in or declared IMMUTABLE or STABLE by
// the files; column references never are; operators and views likewise.
func TestFileFunctionsClassify(t *testing.T) {
	schema, err := catalog.LoadDDL(fileFuncsDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	ff, err := ReadFileFunctions(fileFuncsDDL, schema)
	if err != nil {
		t.Fatal(err)
	}
	none := undeclaredFunctions(schema)
	for _, tc := range []struct {
		sql string
		// why is a part of the side effect named, "" for none; whyNone
		// the same without the files' declarations.
		why, whyNone string
	}{
		// Built-ins that change nothing, however spelled.
		{sql: "SELECT upper(name), lower(name), now(), count(*), coalesce(w, 0), random(), currval('s') FROM t"},
		{sql: "SELECT pg_catalog.length(name), extract(year FROM now()), substring(name FROM 2), trim(name), name LIKE 'a%', w BETWEEN 1 AND 2 FROM t"},
		{sql: "SELECT count(*) FROM t WHERE id IN (SELECT id FROM t) AND w = ANY (ARRAY[1]) AND w OPERATOR(pg_catalog.+) 1 > 0"},
		// Column references, qualified or not, are no calls (t.name and
		// t.w are columns, though w and name are declared functions).
		{sql: "SELECT t.id, t.name, t.w, x.id FROM t, t x"},
		// Built-ins that write or lock.
		{sql: "SELECT nextval('s')", why: "a call of nextval", whyNone: "a call of nextval"},
		{sql: "SELECT pg_advisory_lock(1)", why: "a call of pg_advisory_lock", whyNone: "pg_advisory_lock"},
		{sql: "SELECT lo_from_bytea(0, 'x')", why: "lo_from_bytea", whyNone: "lo_from_bytea"},
		{sql: "SELECT pg_catalog.set_config('a.b', 'c', false)", why: "set_config", whyNone: "set_config"},
		// User functions by their declarations.
		{sql: "SELECT f_imm(1), app.f_stable(2), f_stable(3), f_made_stable(4), f_replaced(5)",
			whyNone: "a call of f_imm (" + whyUnknownFunc + ")"},
		{sql: "SELECT count(*) FROM t WHERE f_default(id) = 1", why: "a call of f_default (" + whyVolatile + ")", whyNone: "f_default (" + whyUnknownFunc},
		{sql: "SELECT public.f_default(1)", why: "public.f_default (" + whyVolatile, whyNone: "public.f_default (" + whyUnknownFunc},
		{sql: "SELECT f_over(1)", why: "f_over (" + whyVolatile, whyNone: "f_over"},
		{sql: "SELECT f_made_volatile(1)", why: "f_made_volatile (" + whyVolatile, whyNone: "f_made_volatile"},
		{sql: "SELECT f_undeclared(1) FROM t", why: "a call of f_undeclared (" + whyUnknownFunc + ")", whyNone: "f_undeclared"},
		// Another schema's function is not the declared or built-in one.
		{sql: "SELECT other.f_imm(1)", why: "other.f_imm (" + whyUnknownFunc, whyNone: "other.f_imm"},
		{sql: "SELECT app.upper('x')", why: "app.upper (" + whyUnknownFunc, whyNone: "app.upper"},
		{sql: "SELECT public.f_imm(1)", whyNone: "public.f_imm"},
		{sql: `SELECT "UPPER"('x')`, why: "a call of UPPER (", whyNone: "UPPER"},
		// A built-in's name declared VOLATILE may be the one called.
		{sql: "SELECT lpad(1)", why: "a call of lpad (" + whyVolatile},
		// Attribute notation of a declared VOLATILE function that is no
		// column; a procedure is not callable in a query.
		{sql: "SELECT count(*) FROM t x WHERE x.w = 1"},
		{sql: "SELECT x.p_add FROM t x"},
		{sql: "SELECT x.f_default FROM t x", why: "f_default by attribute notation"},
		// Aggregates by their support functions.
		{sql: "SELECT agg_ok(id) FROM t", whyNone: "agg_ok"},
		{sql: "SELECT agg_bad(id) FROM t", why: "a call of agg_bad (" + whyVolatile, whyNone: "agg_bad"},
		// Operators.
		{sql: "SELECT count(*) FROM t WHERE id ### 2", why: "operator ### (" + whyVolatileOp, whyNone: "operator ### (" + whyUnknownOp},
		{sql: "SELECT 1 <#> 2", whyNone: "operator <#>"},
		{sql: "SELECT 1 OPERATOR(app.@@@) 2", whyNone: "operator app.@@@"},
		{sql: "SELECT 1 OPERATOR(other.+) 2", why: "operator other.+ (" + whyUnknownOp, whyNone: "other.+"},
		{sql: "SELECT count(*) FROM t WHERE id IN (SELECT 1 <#> 2)", whyNone: "operator <#>"},
		// Views, through views.
		{sql: "SELECT count(*) FROM v_ok"},
		{sql: "SELECT count(*) FROM v_bad", why: "view v_bad (it reaches a call of f_default", whyNone: "view v_bad"},
		{sql: "SELECT count(*) FROM v_bad2", why: "view v_bad2 (it reaches view v_bad", whyNone: "view v_bad2"},
		// Relations the files do not define may be views calling
		// anything; system relations and CTEs in scope are known.
		{sql: "SELECT count(*) FROM public.t, app.t_app, t_app, pg_class, pg_catalog.pg_proc, information_schema.tables",
			whyNone: "relation app.t_app (" + whyUnknownRel + ")"},
		{sql: "SELECT count(*) FROM server_view", why: "relation server_view (" + whyUnknownRel + ")", whyNone: "relation server_view"},
		{sql: "SELECT count(*) FROM other.t", why: "relation other.t (", whyNone: "relation other.t ("},
		{sql: "SELECT count(*) FROM public.t_app", why: "relation public.t_app (", whyNone: ""},
		{sql: "SELECT count(*) FROM tables", why: "relation tables (", whyNone: "relation tables ("},
		{sql: "WITH w AS (SELECT 1) SELECT count(*) FROM w, t"},
		{sql: "WITH w AS (SELECT * FROM w) SELECT count(*) FROM w", why: "relation w (", whyNone: "relation w ("},
	} {
		stmts, err := tag.Split(tc.sql, sqltext.StandardStrings)
		if err != nil || len(stmts) != 1 {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		for _, c := range []struct {
			ff   *FileFunctions
			want string
			what string
		}{{ff, tc.why, "declared"}, {none, tc.whyNone, "undeclared"}} {
			got := c.ff.namesWhy(stmts[0].Names)
			if stmts[0].Class.HasSideEffects() {
				got = stmts[0].Why // refused before the names are read
			}
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("%s (%s): got %q, want %q", tc.sql, c.what, got, c.want)
			}
		}
	}
}
