package judging

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// TestBypassSessionSchema (issue 34, item 4): while the session may
// resolve names otherwise than the schema the proxy judges with (a
// temporary table shadowing dogs, a search_path changed, DDL in its open
// transaction, DDL earlier in the same Query), enforce mode refuses
// judged statements (PGQ02) though enforce_unknown is off: here
// count(owner_id) would be proved equal to count(*) from the NOT NULL of
// the real dogs.owner_id. RESET, DISCARD and the end of the transaction
// end it; committed DDL is read again.
func TestBypassSessionSchema(t *testing.T) {
	tagged := countOwner + " " + tagRef(countStar)
	notNull := "SELECT count(*) FROM pg_attribute WHERE attrelid = 'dogs'::regclass AND attname = 'owner_id' AND NOT attnotnull"
	runEnforceCases(t, bypassSettings(t), []enforceCase{
		{name: "temporary table shadowing dogs", setup: []string{"CREATE TEMP TABLE dogs (dog_id int, owner_id int, name text, age int)",
			"INSERT INTO dogs VALUES (9, NULL, 'Nul', 9)"}, sql: tagged, code: SQLStateUnverified, msg: "temporary objects", twice: true,
			probe: "DISCARD ALL"},
		{name: "search_path changed", setup: []string{"SET search_path = pg_temp, public"}, sql: tagged, code: SQLStateUnverified, msg: "search_path"},
		{name: "search_path by set_config", setup: []string{"SELECT set_config('search_path', 'public', false)"}, sql: tagged, code: SQLStateUnverified, msg: "search_path"},
		{name: "DDL in the open transaction", setup: []string{"BEGIN", "ALTER TABLE dogs ALTER COLUMN owner_id DROP NOT NULL"},
			sql: tagged, code: SQLStateUnverified, msg: "open transaction", probe: "ROLLBACK",
			check: "SELECT count(*) FROM pg_attribute WHERE attrelid = 'dogs'::regclass AND attname = 'owner_id' AND attnotnull"},
		// What runs.
		{name: "after RESET search_path", setup: []string{"SET search_path = public", "RESET search_path"}, sql: tagged},
		{name: "after DISCARD TEMP", setup: []string{"CREATE TEMP TABLE t34 (a int)", "DISCARD TEMP"}, sql: tagged},
		{name: "after the transaction", setup: []string{"BEGIN", "CREATE TABLE bypass34_tx (a int)", "ROLLBACK"}, sql: tagged},
		{name: "untagged under a temporary table", setup: []string{"CREATE TEMP TABLE dogs (dog_id int)"}, sql: "SELECT count(*) FROM dogs"},
	})
	// With side effects forwarded, DDL before a tagged statement in the
	// same Query runs first: the judged statement is refused, and with it
	// the Query (the column keeps its NOT NULL).
	set := bypassSettings(t)
	set.EnforceSideEffects = SideEffectsForward
	runEnforceCases(t, set, []enforceCase{
		{name: "DDL earlier in the Query", sql: "ALTER TABLE dogs ALTER COLUMN owner_id DROP NOT NULL; " + tagged,
			code: SQLStateUnverified, msg: "statement 1 (DDL (AlterTableStmt)) earlier in the Query changes the schema first", check: notNull},
	})
}

// TestMayChangeResolution: the words that mark a possible change of the
// session's name resolution are whole words.
func TestMayChangeResolution(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want bool
	}{
		{"CREATE TEMP TABLE x (a int)", true},
		{"begin; Alter table dogs add c int", true},
		{"SELECT 1; drop view v", true},
		{"SET search_path = s", true},
		{"DISCARD ALL", true},
		{"SELECT created_at, dropped, alter_ego FROM t", false},
		{"SELECT count(*) FROM dogs", false},
	} {
		if got := mayChangeResolution([]byte(tc.sql)); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.sql, got, tc.want)
		}
	}
}

// TestBypassSessionSchemaStartup: a search_path given at login (libpq's
// options, or the startup parameter) counts as one set later.
func TestBypassSessionSchemaStartup(t *testing.T) {
	e := startJudgeProxy(t, bypassSettings(t), JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	for _, tc := range []struct {
		name, key, value string
	}{
		{"startup parameter", "search_path", "pg_temp, public"},
		{"options", "options", "-c search_path=public"},
	} {
		cfg, err := pgconn.ParseConfig(dbConnString(e.Host, e.Port, pgtest.SuperUser, "", kennelDB))
		if err != nil {
			t.Fatal(err)
		}
		cfg.RuntimeParams[tc.key] = tc.value
		conn, err := pgconn.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = conn.Exec(ctx, countOwner+" "+tagRef(countStar)).ReadAll()
		conn.Close(ctx)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified || !strings.Contains(pgErr.Message, "search_path") {
			t.Fatalf("%s: got %v, want a PGQ02 refusal naming search_path", tc.name, err)
		}
	}
}

// TestBypassSessionSchemaAfterPrepare: a statement judged (equivalent) at
// its Parse and executed after the session changed how it resolves names
// (a temporary dogs with a NULL owner) is refused at its Bind, and runs
// again once the change is undone.
func TestBypassSessionSchemaAfterPrepare(t *testing.T) {
	e := startJudgeProxy(t, bypassSettings(t), JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	conn, _ := e.connectNotices(t, ctx, kennelDB)
	pc := conn.PgConn()
	if _, err := pc.Prepare(ctx, "counted", countOwner+" "+tagRef(countStar), nil); err != nil {
		t.Fatalf("Parse: %v", err)
	}
	exec := func() error {
		_, err := pc.ExecPrepared(ctx, "counted", nil, nil, nil).Close()
		return err
	}
	if err := exec(); err != nil {
		t.Fatalf("before the change: %v", err)
	}
	for _, s := range []string{"CREATE TEMP TABLE dogs (dog_id int, owner_id int, name text, age int)", "INSERT INTO dogs VALUES (9, NULL, 'Nul', 9)"} {
		if err := simpleExec(ctx, conn, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	var pgErr *pgconn.PgError
	if err := exec(); !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified || !strings.Contains(pgErr.Message, "temporary objects") {
		t.Fatalf("after CREATE TEMP TABLE dogs: got %v, want a PGQ02 refusal naming temporary objects", err)
	}
	if err := simpleExec(ctx, conn, "DISCARD TEMP"); err != nil {
		t.Fatal(err)
	}
	if err := exec(); err != nil {
		t.Fatalf("after DISCARD TEMP: %v", err)
	}
}
