package judging

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// filesDecl is what the schema files of TestBypassFilesVolatile declare
// beside the kennel's tables: bypass_sqlw with no volatility (VOLATILE,
// as PostgreSQL reads it), bypass_stable as it is, and bypass_plw STABLE,
// which it is not (effectsDDL creates it VOLATILE in PostgreSQL): the
// files are the user's declaration, and the proxy takes them at their
// word.
const filesDecl = `
CREATE FUNCTION bypass_sqlw(id int) RETURNS int LANGUAGE sql AS
  $$INSERT INTO owners (owner_id, first_name, last_name) VALUES (id, 'Eve', 'Mallory') RETURNING 1$$;
CREATE FUNCTION bypass_stable(a int) RETURNS int LANGUAGE sql STABLE AS $$SELECT a$$;
CREATE FUNCTION bypass_plw(id int) RETURNS int LANGUAGE plpgsql STABLE AS
  $$BEGIN INSERT INTO owners (owner_id, first_name, last_name) VALUES (id, 'Eve', 'Mallory'); RETURN 1; END$$;
CREATE VIEW bypass_wv AS SELECT dog_id, bypass_sqlw(9721) AS w FROM dogs WHERE dog_id = 1;
`

// filesBypass are bypassSettings whose kennel schema comes from DDL
// files (no pg_proc), declaring decl's functions; effectsDDL has created
// the writing functions in PostgreSQL.
func filesBypass(t *testing.T, decl string) JudgeSettings {
	t.Helper()
	ctx := testCtx(t, 60*time.Second)
	direct := kennelDirect(t, ctx)
	if _, err := direct.Exec(ctx, effectsDDL); err != nil {
		t.Fatalf("effects DDL: %v", err)
	}
	ddl := catalog.ExampleDDL() + decl
	schema, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	ff, err := ReadFileFunctions(ddl, schema)
	if err != nil {
		t.Fatal(err)
	}
	set := bypassSettings(t)
	set.Schemas = SchemaSettings{ByDatabase: map[string]*catalog.Schema{kennelDB: schema}, Functions: map[string]*FileFunctions{kennelDB: ff}}
	return set
}

// TestBypassFilesVolatile (issue 34, item 3, schema files): with no
// pg_proc, a tagged query calling a function that is neither a read-only
// built-in nor declared IMMUTABLE or STABLE by the files is refused for
// its side effects though enforce_unknown is off, and PostgreSQL's state
// shows it did not run (the owner not written, the sequence not
// advanced, the large object not created), as is one reading a view the
// files do not define, or one they define over such a function. Built-ins
// that change nothing, system relations, CTEs and qualified column
// references run; a function the files declare
// STABLE is judged (here unknown, so forwarded: it writes).
func TestBypassFilesVolatile(t *testing.T) {
	tagged := func(sql string) string { return sql + " " + tagRef(countStar) }
	refused := func(name, sql, msg, check string) enforceCase {
		return enforceCase{name: name, sql: tagged(sql), code: SQLStateUnverified, msg: msg, check: check, twice: true}
	}
	seq := "SELECT count(*) FROM bypass_seq WHERE is_called"
	lo := "SELECT count(*) FROM pg_largeobject_metadata WHERE oid = 9741"
	for _, tc := range []struct {
		name  string
		decl  string
		cases []enforceCase
	}{
		{name: "declared", decl: filesDecl, cases: []enforceCase{
			refused("undeclared SQL function that inserts, with a row argument", "SELECT count(*) FROM dogs WHERE age > 5 AND bypass_roww(dogs) = 1",
				"a call of bypass_roww (not a built-in, and the schema files do not declare it IMMUTABLE or STABLE; with no pg_proc its volatility is unknown) has side effects",
				"SELECT count(*) FROM owners WHERE owner_id BETWEEN 9712 AND 9740"),
			refused("declared VOLATILE", "SELECT count(*) FROM dogs WHERE age > 5 AND bypass_sqlw(9741) = 1",
				"a call of bypass_sqlw (the schema files declare it VOLATILE) has side effects", ownerCount(9741)),
			refused("schema-qualified", "SELECT count(*) FROM dogs WHERE age > 5 AND public.bypass_sqlw(9742) = 1",
				"a call of public.bypass_sqlw (the schema files declare it VOLATILE)", ownerCount(9742)),
			refused("undeclared operator", "SELECT count(*) FROM dogs WHERE age > 5 AND age ### 9743",
				"operator ### (not a built-in operator", ownerCount(9743)),
			refused("a files view calling a VOLATILE function", "SELECT count(*) FROM bypass_wv",
				"view bypass_wv (it reaches a call of bypass_sqlw (the schema files declare it VOLATILE))", ownerCount(9721)),
			refused("a view the files do not define", "SELECT count(*) FROM dogs WHERE age > 5 AND EXISTS (SELECT 1 FROM bypass_wv2)",
				"relation bypass_wv2 (the schema files do not define it", ownerCount(9721)),
			refused("nextval", "SELECT count(*) FROM dogs WHERE age > nextval('bypass_seq') - 100", "a call of nextval", seq),
			refused("pg_advisory_lock", "SELECT count(*) FROM dogs WHERE age > 5 AND pg_advisory_lock(34) IS NOT NULL", "pg_advisory_lock",
				"SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 34"),
			refused("lo_from_bytea", "SELECT count(*) FROM dogs WHERE age > 5 AND lo_from_bytea(9741, 'x') > 0",
				"a call of lo_from_bytea (not a built-in", lo),
			// What runs.
			{name: "read-only built-ins", sql: tagged("SELECT count(*) FROM dogs WHERE age > 5 AND upper(name) IS DISTINCT FROM 'X' AND now() > '2000-01-01' AND coalesce(age, 0) >= 0 AND random() < 2"), twice: true},
			{name: "qualified column references", sql: tagged("SELECT count(d.owner_id) FROM dogs d WHERE d.age > 5"), twice: true},
			{name: "a function declared STABLE", sql: tagged("SELECT count(*) FROM dogs WHERE age > bypass_stable(5)"), twice: true},
			{name: "a writing function declared STABLE: the files' word is taken", sql: tagged("SELECT count(*) FROM dogs WHERE age > (SELECT bypass_plw(9744) + 4)"),
				check: ownerCount(9744)},
		}},
		{name: "no functions declared", cases: []enforceCase{
			refused("plpgsql function that inserts", "SELECT count(*) FROM dogs WHERE age > bypass_plw(9745) + 4",
				"a call of bypass_plw (not a built-in, and the schema files do not declare it IMMUTABLE or STABLE; with no pg_proc its volatility is unknown)", ownerCount(9745)),
			refused("STABLE in PostgreSQL, undeclared", "SELECT count(*) FROM dogs WHERE age > bypass_stable(5)", "a call of bypass_stable (not a built-in", ""),
			refused("a view the files do not define", "SELECT count(*) FROM bypass_wv", "relation bypass_wv (the schema files do not define it", ownerCount(9721)),
			{name: "under a session reference", setup: []string{"SET pgequiv.reference = '" + countStar + "'"},
				sql: "SELECT count(*) FROM dogs WHERE age > (SELECT bypass_plw(9746) + 4)", code: SQLStateUnverified, msg: "a call of bypass_plw (not a built-in", check: ownerCount(9746)},
			{name: "a cursor under a session reference", setup: []string{"SET pgequiv.reference = '" + countStar + "'"},
				sql: "BEGIN; DECLARE c CURSOR FOR SELECT bypass_plw(9747); FETCH ALL FROM c; COMMIT", code: SQLStateUnverified, msg: "a call of bypass_plw", check: ownerCount(9747)},
			refused("a view in another schema", "SELECT count(*) FROM pg_temp.dogs", "relation pg_temp.dogs (", ""),
			{name: "system relations and CTEs", sql: tagged("WITH d AS (SELECT * FROM dogs) SELECT count(*) FROM d WHERE age > 5 AND EXISTS (SELECT 1 FROM pg_class) AND EXISTS (SELECT 1 FROM information_schema.tables)")},
			{name: "read-only built-ins", sql: tagged("SELECT count(*) FROM dogs WHERE age > 5 AND (lower(name) <> 'x' OR lower(name) = 'x' OR name IS NULL)")},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runEnforceCases(t, filesBypass(t, tc.decl), tc.cases)
		})
	}
}

// TestBypassFilesUnreadCalls (issue 34, item 3, schema files, the unread
// paths): a tagged query over max_query_size is not parsed, but the
// proxy's lexer still finds its calls: one of a function that is neither
// a read-only built-in nor declared IMMUTABLE or STABLE is refused for
// its side effects (the owner is not written, even with a comment between
// the name and its parenthesis); built-ins, declared STABLE functions,
// window clauses and names in comments and literals are not, and the
// padded read is forwarded (unknown, enforce_unknown off).
func TestBypassFilesUnreadCalls(t *testing.T) {
	set := filesBypass(t, filesDecl)
	set.Options.MaxQueryBytes = 2048
	pad := "/*" + strings.Repeat("x", 3000) + "*/ "
	tagged := func(sql string) string { return sql + " " + pad + tagRef(countStar) }
	runEnforceCases(t, set, []enforceCase{
		{name: "padded call of an undeclared writing function", sql: tagged("SELECT count(*) FROM dogs WHERE age > 5 AND bypass_roww(dogs) = 1"),
			code: SQLStateUnverified, msg: "a call of bypass_roww (not a built-in", check: "SELECT count(*) FROM owners WHERE owner_id BETWEEN 9712 AND 9740"},
		{name: "padded call with a comment before its parenthesis", sql: tagged("SELECT count(*) FROM dogs WHERE age > (SELECT PUBLIC.Bypass_Sqlw /* x */ (9751))"),
			code: SQLStateUnverified, msg: "a call of public.bypass_sqlw (the schema files declare it VOLATILE)", check: ownerCount(9751)},
		{name: "padded call of a quoted name", sql: tagged(`SELECT count(*) FROM dogs WHERE age > (SELECT "bypass_sqlw"(9752))`),
			code: SQLStateUnverified, msg: "a call of bypass_sqlw", check: ownerCount(9752)},
		// What runs.
		{name: "padded read with built-ins and a window clause", sql: tagged("SELECT count(*) FILTER (WHERE upper(name) <> 'x') OVER (PARTITION BY owner_id) FROM dogs WHERE age > 5 AND 'evil(1)' <> $$bypass_sqlw(9753)$$ /* bypass_sqlw(9753) */")},
		{name: "padded read calling a declared STABLE function", sql: tagged("SELECT count(*) FROM dogs WHERE age > bypass_stable(5)")},
	})
}

// TestBypassFilesVolatileExtended: the same through the extended
// protocol, as drivers send it (a statement cached and described, or
// sent once): with schema files declaring no function, a tagged query
// with a parameter that calls a writing plpgsql function is refused at
// each execution and the owner is not written; one calling only
// built-ins runs.
func TestBypassFilesVolatileExtended(t *testing.T) {
	set := filesBypass(t, "")
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	direct := kennelDirect(t, ctx)
	for i, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeDescribeExec, pgx.QueryExecModeExec} {
		conn, err := pgx.Connect(ctx, dbConnString(e.Host, e.Port, pgtest.SuperUser, "", kennelDB))
		if err != nil {
			t.Fatal(err)
		}
		id := 9761 + i
		for range 2 {
			var n int
			err := conn.QueryRow(ctx, "SELECT count(*) FROM dogs WHERE age > (SELECT bypass_plw($1) + 4) "+tagRef(countStar), mode, id).Scan(&n)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified || !strings.Contains(pgErr.Message, "a call of bypass_plw (not a built-in") {
				t.Fatalf("%v: got %v, want a PGQ02 refusal naming bypass_plw", mode, err)
			}
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM dogs WHERE age > $1 AND upper(name) IS DISTINCT FROM $2 "+tagRef(countStar), mode, 5, "x").Scan(&n); err != nil {
				t.Fatalf("%v: built-ins refused: %v", mode, err)
			}
		}
		var written int
		if err := direct.QueryRow(ctx, ownerCount(id)).Scan(&written); err != nil || written != 0 {
			t.Fatalf("%v: owner %d written %d times (%v)", mode, id, written, err)
		}
		conn.Close(ctx)
	}
}
