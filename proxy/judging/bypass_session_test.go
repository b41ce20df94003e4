package judging

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// The bypass suite for session settings (issue 19, finding 5): the
// reference a SET, SET LOCAL, set_config or startup option gives is in
// force through the proxy exactly when PostgreSQL says the setting is.
// Each script runs on a connection straight to the server, whose SHOW is
// the oracle, and on one through an enforcing proxy, which answers SHOW
// itself (it consumes the SETs) and refuses a wrong probe query exactly
// while the reference is in force.

const (
	// sessRef is the reference the scripts set; sessProbe is wrong for it.
	sessRef   = countStar
	sessProbe = "SELECT count(*), 1 FROM dogs WHERE age > 5"
	// sessOther is another reference, which the probe is equivalent to.
	sessOther = sessProbe
)

func TestBypassSessionSettings(t *testing.T) {
	set := annotateSettings(t)
	set.Mode = ModeEnforce
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 180*time.Second)
	setRef := "SET pgequiv.reference = '" + sessRef + "'"
	setOther := "SET pgequiv.reference = '" + strings.ReplaceAll(sessOther, "'", "''") + "'"
	for _, tc := range []struct {
		name    string
		options string // startup options
		script  []string
	}{
		{name: "set local outside a transaction", script: []string{"SET LOCAL pgequiv.reference = '" + sessRef + "'"}},
		{name: "set local ends with commit", script: []string{"BEGIN", "SET LOCAL pgequiv.reference = '" + sessRef + "'", "COMMIT"}},
		{name: "set local ends with rollback", script: []string{"BEGIN", "SET LOCAL pgequiv.reference = '" + sessRef + "'", "ROLLBACK"}},
		{name: "set kept by commit", script: []string{"BEGIN", setRef, "COMMIT", "RESET pgequiv.reference"}},
		{name: "set undone by rollback", script: []string{"BEGIN", setRef, "ROLLBACK"}},
		{name: "set local over a session value", script: []string{setRef, "BEGIN", "SET LOCAL " + setOther[4:], "COMMIT"}},
		{name: "rollback to savepoint", script: []string{"BEGIN", setRef, "SAVEPOINT a", setOther, "ROLLBACK TO SAVEPOINT a", "RELEASE a", "COMMIT"}},
		{name: "released savepoint", script: []string{"BEGIN", "SAVEPOINT a", setRef, "RELEASE SAVEPOINT a", "COMMIT"}},
		{name: "failed transaction", script: []string{"BEGIN", setRef, "SELECT 1/0", setOther, "ROLLBACK"}},
		{name: "failed transaction committed", script: []string{"BEGIN", setRef, "SELECT 1/0", "COMMIT"}},
		{name: "savepoint after a failure", script: []string{"BEGIN", "SAVEPOINT a", setRef, "SELECT 1/0", "ROLLBACK TO a", "COMMIT"}},
		{name: "commit and chain", script: []string{"BEGIN", "SET LOCAL pgequiv.reference = '" + sessRef + "'", "COMMIT AND CHAIN", setRef, "ROLLBACK"}},
		{name: "set to default and reset all", script: []string{setRef, "SET pgequiv.reference TO DEFAULT", setRef, "RESET ALL"}},
		{name: "set_config", script: []string{"SELECT set_config('pgequiv.reference', '" + sessRef + "', false)"}},
		{name: "set_config local", script: []string{"BEGIN", "SELECT set_config('pgequiv.reference', '" + sessRef + "', true)", "COMMIT"}},
		{name: "set_config local outside a transaction", script: []string{"SELECT set_config('pgequiv.reference', '" + sessRef + "', true)"}},
		{name: "set_config in a failing statement", script: []string{"SELECT set_config('pgequiv.reference', '" + sessRef + "', false), 1/0"}},
		{name: "set_config rolled back", script: []string{"BEGIN", "SELECT set_config('pgequiv.reference', '" + sessRef + "', false)", "ROLLBACK"}},
		{name: "startup option", options: "-c pgequiv.reference=" + strings.ReplaceAll(sessRef, " ", `\ `),
			script: []string{setOther, "RESET pgequiv.reference", "BEGIN", "RESET ALL", "ROLLBACK"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			connect := func(host string, port int) *pgx.Conn {
				cfg, err := pgx.ParseConfig(dbConnString(host, port, pgtest.SuperUser, "", kennelDB))
				if err != nil {
					t.Fatal(err)
				}
				if tc.options != "" {
					cfg.RuntimeParams["options"] = tc.options
				}
				cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
				c, err := pgx.ConnectConfig(ctx, cfg)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close(context.Background()) })
				return c
			}
			direct, proxied := connect(pg.Host, pg.Port), connect(e.Host, e.Port)
			check := func(step string) {
				t.Helper()
				want, failed := showSetting(t, ctx, direct, true)
				got, gotFailed := showSetting(t, ctx, proxied, false)
				if want != got || failed != gotFailed {
					t.Fatalf("after %q: SHOW through the proxy %q (failed transaction %v), on the server %q (%v)", step, got, gotFailed, want, failed)
				}
				if failed {
					return
				}
				_, err := proxied.Exec(ctx, sessProbe)
				var pgErr *pgconn.PgError
				refused := errors.As(err, &pgErr) && pgErr.Code == SQLStateNotEquivalent
				if refused != (want == sessRef) || err != nil && !refused {
					t.Fatalf("after %q (reference %q): probe refused %v (%v)", step, want, refused, err)
				}
			}
			check("connect")
			for _, stmt := range tc.script {
				_, errD := direct.Exec(ctx, stmt)
				_, errP := proxied.Exec(ctx, stmt)
				if (errD == nil) != (errP == nil) {
					t.Fatalf("%q: on the server %v, through the proxy %v", stmt, errD, errP)
				}
				check(stmt)
			}
		})
	}
}

// showSetting returns the setting ("" for one the server has never heard
// of), or failed in a failed transaction, where PostgreSQL refuses SHOW.
// On the server it asks current_setting(…, missing_ok), as SHOW of an
// unknown setting is an error that would abort the transaction; the
// proxy answers SHOW.
func showSetting(t *testing.T, ctx context.Context, c *pgx.Conn, server bool) (string, bool) {
	t.Helper()
	var v *string
	q := "SHOW pgequiv.reference"
	if server {
		q = "SELECT current_setting('pgequiv.reference', true)"
	}
	err := c.QueryRow(ctx, q).Scan(&v)
	var pgErr *pgconn.PgError
	switch {
	case err == nil && v == nil:
		return "", false
	case err == nil:
		return *v, false
	case errors.As(err, &pgErr) && pgErr.Code == "25P02":
		return "", true
	}
	t.Fatalf("SHOW pgequiv.reference: %v", err)
	return "", false
}

// TestBypassSessionSettingsPrepared: a statement prepared while a
// session reference is in force (age > $1 against age > 5: unknown at
// Parse, wrong for 6) is judged at each execution against the reference
// in force then: refused under SET LOCAL, run after COMMIT
// ended it, refused again under SET, run after RESET.
func TestBypassSessionSettingsPrepared(t *testing.T) {
	set := annotateSettings(t)
	set.Mode = ModeEnforce
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	conn, _ := e.connectNotices(t, ctx, kennelDB)
	simple := pgx.QueryExecModeSimpleProtocol
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql, simple); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	probe := func(wantRefused bool, step string) {
		t.Helper()
		var n int
		err := conn.QueryRow(ctx, "probe", 6).Scan(&n)
		var pgErr *pgconn.PgError
		refused := errors.As(err, &pgErr) && pgErr.Code == SQLStateNotEquivalent
		if refused != wantRefused || err != nil && !refused {
			t.Fatalf("%s: refused %v, want %v (%v)", step, refused, wantRefused, err)
		}
	}
	exec("BEGIN")
	exec("SET LOCAL pgequiv.reference = '" + sessRef + "'")
	if _, err := conn.Prepare(ctx, "probe", "SELECT count(*) FROM dogs WHERE age > $1"); err != nil {
		t.Fatal(err)
	}
	probe(true, "under SET LOCAL")
	exec("COMMIT")
	probe(false, "after COMMIT")
	exec("SET pgequiv.reference = '" + sessRef + "'")
	probe(true, "under SET")
	exec("RESET pgequiv.reference")
	probe(false, "after RESET")
}
