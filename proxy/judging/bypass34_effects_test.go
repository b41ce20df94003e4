package judging

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/proxy"
)

// The second part of issue 34's bypass suite: statements that reach a
// write through a wrapper the session reference did not cover (item 2),
// and queries that write through a VOLATILE function (item 3). Each goes
// through an enforcing proxy (enforce_unknown off) to a real PostgreSQL,
// whose own state is checked afterwards.

// effectsDDL are the writing functions, operator and views of the
// cases, created in PostgreSQL directly before the proxy reads the
// schema. Each writes an owner whose id the caller passes.
const effectsDDL = `
CREATE OR REPLACE FUNCTION bypass_sqlw(id int) RETURNS int LANGUAGE sql VOLATILE AS
  $$INSERT INTO owners (owner_id, first_name, last_name) VALUES (id, 'Eve', 'Mallory') RETURNING 1$$;
CREATE OR REPLACE FUNCTION bypass_plw(id int) RETURNS int LANGUAGE plpgsql AS
  $$BEGIN INSERT INTO owners (owner_id, first_name, last_name) VALUES (id, 'Eve', 'Mallory'); RETURN 1; END$$;
CREATE OR REPLACE FUNCTION bypass_opw(a int, b int) RETURNS bool LANGUAGE sql VOLATILE AS
  $$INSERT INTO owners (owner_id, first_name, last_name) VALUES (b, 'Eve', 'Mallory') RETURNING a > 0$$;
CREATE OR REPLACE FUNCTION bypass_roww(d dogs) RETURNS int LANGUAGE sql VOLATILE AS
  $$INSERT INTO owners (owner_id, first_name, last_name) VALUES (9711 + d.dog_id, 'Eve', 'Mallory') RETURNING 1$$;
CREATE OR REPLACE FUNCTION bypass_stable(a int) RETURNS int LANGUAGE sql STABLE AS $$SELECT a$$;
DROP OPERATOR IF EXISTS ### (int, int);
CREATE OPERATOR ### (LEFTARG = int, RIGHTARG = int, FUNCTION = bypass_opw);
CREATE OR REPLACE VIEW bypass_wv AS SELECT dog_id, bypass_sqlw(9721) AS w FROM dogs WHERE dog_id = 1;
CREATE OR REPLACE VIEW bypass_wv2 AS SELECT dog_id FROM bypass_wv;
DROP TABLE IF EXISTS bypass_trunc;
CREATE TABLE bypass_trunc (a int);
INSERT INTO bypass_trunc VALUES (1);
DROP SEQUENCE IF EXISTS bypass_seq;
CREATE SEQUENCE bypass_seq;
DROP TABLE IF EXISTS bypass_ctas;
CREATE TABLE IF NOT EXISTS bypass_trig (id int PRIMARY KEY, a int NOT NULL);
CREATE OR REPLACE FUNCTION bypass_trig_noop() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$;
CREATE OR REPLACE TRIGGER bypass_trig_noop BEFORE INSERT ON bypass_trig FOR EACH ROW EXECUTE FUNCTION bypass_trig_noop();
SELECT lo_unlink(oid) FROM pg_largeobject_metadata WHERE oid = 9731;
DROP DOMAIN IF EXISTS bypass_wdom;
CREATE DOMAIN bypass_wdom AS int CHECK (bypass_sqlw(VALUE) = 1);`

// introspectedBypass are bypassSettings with the kennel schema read from
// PostgreSQL (the functions' volatility comes with it), after
// effectsDDL has run there.
func introspectedBypass(t *testing.T, ctx context.Context) JudgeSettings {
	t.Helper()
	direct := kennelDirect(t, ctx)
	if _, err := direct.Exec(ctx, effectsDDL); err != nil {
		t.Fatalf("effects DDL: %v", err)
	}
	set := bypassSettings(t)
	in := Introspection{Upstream: proxy.Upstream{Address: pg.Addr(), TLSMode: proxy.TLSDisable}, User: pgtest.SuperUser, Timeout: 10 * time.Second}
	set.Schemas = SchemaSettings{Introspect: &in}
	return set
}

// TestBypassSessionWrappers (issue 34, item 2): under a session
// reference, statements that write through a wrapper are refused (the
// row stays, the table is not created), and a cursor is judged on its
// query: a different query is refused, an equivalent one runs. Without a
// reference they all run.
func TestBypassSessionWrappers(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	set := introspectedBypass(t, ctx)
	setRef := "SET pgequiv.reference = '" + countStar + "'"
	runEnforceCases(t, set, []enforceCase{
		{name: "EXPLAIN ANALYZE UPDATE", setup: []string{setRef}, sql: "EXPLAIN ANALYZE UPDATE dogs SET age = 94 WHERE dog_id = 1",
			code: SQLStateUnverified, msg: "EXPLAIN ANALYZE of UPDATE has side effects", check: "SELECT count(*) FROM dogs WHERE age = 94"},
		{name: "EXPLAIN ANALYZE EXECUTE of a prepared UPDATE", setup: []string{"PREPARE bp AS UPDATE dogs SET age = 93 WHERE dog_id = 1", setRef},
			sql: "EXPLAIN ANALYZE EXECUTE bp", code: SQLStateUnverified, msg: "EXPLAIN ANALYZE of EXECUTE", check: "SELECT count(*) FROM dogs WHERE age = 93"},
		{name: "PREPARE of an UPDATE", setup: []string{setRef}, sql: "PREPARE bp AS UPDATE dogs SET age = 92 WHERE dog_id = 1",
			code: SQLStateUnverified, msg: "PREPARE of UPDATE", check: "SELECT count(*) FROM pg_prepared_statements WHERE name = 'bp'"},
		{name: "cursor over a writing function", setup: []string{setRef},
			sql:  "BEGIN; DECLARE c CURSOR FOR SELECT bypass_sqlw(9701) FROM dogs; FETCH ALL FROM c; COMMIT",
			code: SQLStateUnverified, msg: "VOLATILE function bypass_sqlw", check: ownerCount(9701)},
		{name: "cursor over another query", setup: []string{setRef}, sql: "BEGIN; DECLARE c CURSOR FOR " + wrongCount + "; FETCH c; COMMIT",
			code: SQLStateNotEquivalent, msg: "not_equivalent"},
		{name: "TRUNCATE", setup: []string{setRef}, sql: "TRUNCATE bypass_trunc",
			code: SQLStateUnverified, msg: "TRUNCATE has side effects", check: "SELECT 1 - count(*) FROM bypass_trunc"},
		{name: "CREATE TABLE AS", setup: []string{setRef}, sql: "CREATE TABLE bypass_ctas AS SELECT * FROM dogs",
			code: SQLStateUnverified, msg: "CREATE TABLE AS has side effects", check: "SELECT count(*) FROM pg_class WHERE relname = 'bypass_ctas'"},
		{name: "SELECT INTO", setup: []string{setRef}, sql: "SELECT * INTO bypass_ctas FROM dogs",
			code: SQLStateUnverified, msg: "SELECT INTO", check: "SELECT count(*) FROM pg_class WHERE relname = 'bypass_ctas'"},
		{name: "COPY of another query", setup: []string{setRef}, sql: "COPY (" + wrongCount + ") TO STDOUT",
			code: SQLStateNotEquivalent, msg: "not_equivalent"},
		// What runs.
		{name: "cursor over an equivalent query", setup: []string{setRef}, sql: "BEGIN; DECLARE c CURSOR FOR " + countOwner + "; FETCH c; COMMIT"},
		{name: "EXPLAIN ANALYZE of an equivalent query", setup: []string{setRef}, sql: "EXPLAIN ANALYZE " + countOwner},
		{name: "plain EXPLAIN of an UPDATE", setup: []string{setRef}, sql: "EXPLAIN UPDATE dogs SET age = 91 WHERE dog_id = 1",
			check: "SELECT count(*) FROM dogs WHERE dog_id = 1 AND age <> 91"},
		{name: "no reference: EXPLAIN ANALYZE UPDATE runs", sql: "BEGIN; EXPLAIN ANALYZE UPDATE bypass_trunc SET a = 2; ROLLBACK"},
		{name: "no reference: cursor runs", sql: "BEGIN; DECLARE c CURSOR FOR SELECT bypass_sqlw(9702); FETCH c; COMMIT", check: ownerCount(9702)},
	})
}

// TestBypassVolatileFunctions (issue 34, item 3): a tagged query that
// calls a VOLATILE function (SQL or plpgsql, by name, by attribute
// notation, through an operator, through a view or a view of a view, or
// one of pg_catalog's that change state) is refused for its side effects
// though enforce_unknown is off; the owner is not written, the large
// object not created. STABLE functions and random() are judged as before
// (unknown: forwarded).
func TestBypassVolatileFunctions(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	set := introspectedBypass(t, ctx)
	tagged := func(sql string) string { return sql + " " + tagRef(countStar) }
	refused := func(name, sql, msg, check string) enforceCase {
		return enforceCase{name: name, sql: tagged(sql), code: SQLStateUnverified, msg: msg, check: check, twice: true}
	}
	runEnforceCases(t, set, []enforceCase{
		refused("SQL function that inserts", "SELECT count(*) FROM dogs WHERE age > 5 AND bypass_sqlw(9703) = 1",
			"a call of VOLATILE function bypass_sqlw has side effects", ownerCount(9703)),
		refused("plpgsql function that inserts", "SELECT count(*) FROM dogs WHERE age > bypass_plw(9704) + 4",
			"VOLATILE function bypass_plw", ownerCount(9704)),
		refused("schema-qualified call", "SELECT count(*) FROM dogs WHERE age > 5 AND public.bypass_sqlw(9705) = 1",
			"VOLATILE function bypass_sqlw", ownerCount(9705)),
		refused("call in FROM", "SELECT count(*) FROM dogs, bypass_sqlw(9706) w WHERE age > 5",
			"VOLATILE function bypass_sqlw", ownerCount(9706)),
		refused("attribute notation", "SELECT count(*) FROM dogs d WHERE d.age > 5 AND d.bypass_roww = 1",
			"VOLATILE function bypass_roww", "SELECT count(*) FROM owners WHERE owner_id BETWEEN 9712 AND 9713"),
		refused("operator", "SELECT count(*) FROM dogs WHERE age > 5 AND age ### 9707",
			"operator ###", ownerCount(9707)),
		refused("view that calls it", "SELECT count(*) FROM bypass_wv", "view bypass_wv", ownerCount(9721)),
		refused("cast to a domain whose CHECK calls it", "SELECT count(*) FROM dogs WHERE age > 5 AND 9751::bypass_wdom > 0",
			"a cast to domain bypass_wdom", ownerCount(9751)),
		refused("view of that view", "SELECT count(*) FROM bypass_wv2", "view bypass_wv2", ownerCount(9721)),
		refused("lo_from_bytea", "SELECT count(*) FROM dogs WHERE age > 5 AND lo_from_bytea(9731, 'x') > 0",
			"VOLATILE function lo_from_bytea", "SELECT count(*) FROM pg_largeobject_metadata WHERE oid = 9731"),
		refused("pg_advisory_xact_lock", "SELECT count(*) FROM dogs WHERE age > 5 AND pg_advisory_xact_lock(34) IS NULL",
			"VOLATILE function pg_advisory_xact_lock", ""),
		refused("pg_terminate_backend", "SELECT count(*) FROM dogs WHERE age > 5 AND NOT pg_terminate_backend(0)",
			"VOLATILE function pg_terminate_backend", ""),
		refused("query_to_xml", "SELECT count(*) FROM dogs WHERE age > 5 AND query_to_xml('SELECT 1', true, false, '') IS NOT NULL",
			"VOLATILE function query_to_xml", ""),
		// What runs.
		{name: "STABLE function", sql: tagged("SELECT count(*) FROM dogs WHERE age > bypass_stable(5)"), twice: true},
		{name: "random()", sql: tagged("SELECT count(*) FROM dogs WHERE age > 5 AND random() < 2")},
		{name: "untagged call", sql: "SELECT bypass_sqlw(9708)", check: ownerCount(9708)},
		{name: "a column named as the function", sql: tagged(countOwner)},
	})
}

// TestBypassFunctionCall (issue 34, item 2): the protocol's FunctionCall
// message runs a function by its oid; under a session reference enforce
// mode refuses it (the sequence does not advance) and the connection goes
// on; without one it runs.
func TestBypassFunctionCall(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	set := introspectedBypass(t, ctx)
	e := startJudgeProxy(t, set, JudgingOptions{})
	direct := kennelDirect(t, ctx)
	var nextval uint32
	if err := direct.QueryRow(ctx, "SELECT 'nextval(regclass)'::regprocedure::oid").Scan(&nextval); err != nil {
		t.Fatal(err)
	}
	call := func(conn *pgconn.PgConn) error {
		fe := conn.Frontend()
		fe.Send(&pgproto3.FunctionCall{Function: nextval, ArgFormatCodes: []uint16{0}, Arguments: [][]byte{[]byte("bypass_seq")}, ResultFormatCode: 0})
		if err := fe.Flush(); err != nil {
			return err
		}
		var callErr error
		for {
			msg, err := fe.Receive()
			if err != nil {
				return err
			}
			switch m := msg.(type) {
			case *pgproto3.ErrorResponse:
				callErr = pgconn.ErrorResponseToPgError(m)
			case *pgproto3.ReadyForQuery:
				return callErr
			}
		}
	}
	lastValue := func() int {
		var n int
		var called bool
		if err := direct.QueryRow(ctx, "SELECT last_value, is_called FROM bypass_seq").Scan(&n, &called); err != nil {
			t.Fatal(err)
		}
		if !called {
			return 0
		}
		return n
	}
	conn, _ := e.connectNotices(t, ctx, kennelDB)
	before := lastValue()
	for _, tc := range []struct {
		name, setup, code string
		advance           int
	}{
		{name: "session reference", setup: "SET pgequiv.reference = '" + countStar + "'", code: SQLStateUnverified},
		{name: "reference id", setup: "SET pgequiv.reference_id = 'none'", code: SQLStateUnverified},
		{name: "no reference", setup: "RESET ALL", advance: 1},
	} {
		if err := simpleExec(ctx, conn, tc.setup); err != nil {
			t.Fatalf("%s: %s: %v", tc.name, tc.setup, err)
		}
		err := call(conn.PgConn())
		var pgErr *pgconn.PgError
		if tc.code != "" && (!errors.As(err, &pgErr) || pgErr.Code != tc.code || !strings.Contains(pgErr.Message, "FunctionCall")) {
			t.Fatalf("%s: got %v, want %s naming FunctionCall", tc.name, err, tc.code)
		}
		if tc.code == "" && err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := lastValue(); got != before+tc.advance {
			t.Fatalf("%s: the sequence is at %d, want %d", tc.name, got, before+tc.advance)
		}
		before = lastValue()
		if err := simpleExec(ctx, conn, "SHOW client_encoding"); err != nil {
			t.Fatalf("%s: the connection after the call: %v", tc.name, err)
		}
	}
}

// TestBypassSmaller (issue 34, item 10): a tag with a mistyped pgequiv
// key is malformed and refused whatever enforce_unknown (a write so
// tagged too, for its side effects), where it used to run untagged; a
// trigger, which fires on writes only, no longer makes the reads of its
// table unknown (enforce_unknown on: an unknown would be refused).
func TestBypassSmaller(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	set := introspectedBypass(t, ctx)
	set.EnforceUnknown = true
	runEnforceCases(t, set, []enforceCase{
		{name: "mistyped pgequiv_ref_id", sql: wrongCount + " /*pgequiv_ref_idd='old-dogs'*/", code: SQLStateUnverified, msg: "unknown pgequiv key \"pgequiv_ref_idd\"", twice: true},
		{name: "mistyped key, upper case", sql: wrongCount + " /*PGEQUIV_REF='x'*/", code: SQLStateUnverified, msg: "unknown pgequiv key"},
		{name: "mistyped key on a write", sql: ownerIns(9901) + " /*pgequiv_refid='x'*/", code: SQLStateUnverified, msg: "INSERT has side effects", check: ownerCount(9901)},
		{name: "read of a table with a trigger", sql: "SELECT count(a) FROM bypass_trig " + tagRef("SELECT count(*) FROM bypass_trig"), twice: true},
		{name: "write of a table with a trigger", sql: "INSERT INTO bypass_trig VALUES (1, 1) " + tagRef("SELECT count(*) FROM bypass_trig"),
			code: SQLStateUnverified, msg: "INSERT has side effects", check: "SELECT count(*) FROM bypass_trig"},
		// What runs.
		{name: "other sqlcommenter keys", sql: "SELECT 1 /*application='x',route='%2Fdogs'*/"},
	})
}

// TestBypassUnreadVolatile: with an introspected schema, a tagged query
// answered unread (padded past max_query_size) that calls a VOLATILE
// function, as the proxy's lexer finds it, is refused for its side
// effects on a connection's first statement too (before any schema was
// read); one calling a STABLE function is forwarded (unknown).
func TestBypassUnreadVolatile(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	set := introspectedBypass(t, ctx)
	set.Options.MaxQueryBytes = 2048
	pad := "/*" + strings.Repeat("x", 3000) + "*/ "
	runEnforceCases(t, set, []enforceCase{
		{name: "padded call of a writing function", sql: "SELECT count(*) FROM dogs WHERE age > 5 AND bypass_sqlw(9741) = 1 " + pad + tagRef(countStar),
			code: SQLStateUnverified, msg: "VOLATILE function bypass_sqlw", check: ownerCount(9741)},
		{name: "padded schema-qualified call", sql: "SELECT count(*) FROM dogs WHERE age > 5 AND public.bypass_plw(9742) = 1 " + pad + tagRef(countStar),
			code: SQLStateUnverified, msg: "VOLATILE function bypass_plw", check: ownerCount(9742)},
		{name: "padded call of a STABLE function", sql: "SELECT count(*) FROM dogs WHERE age > bypass_stable(5) " + pad + tagRef(countStar)},
	})
}
