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
	"github.com/pgequiv/pgequiv/proxy"
)

// TestRolePathEffective: a login's search_path comes from its role's
// setting in the database, else the role's, else the database's, as
// PostgreSQL picks it; a login differs from the introspection only when
// those differ.
func TestRolePathEffective(t *testing.T) {
	rp := &rolePaths{self: "ops", byKey: map[rolePathKey]string{
		{"shop", "app"}:  "shadow, public",
		{"", "app"}:      "other",
		{"shop", ""}:     "public",
		{"", "reporter"}: "public",
		{"", "ops"}:      "audit, public",
	}}
	for _, tc := range []struct {
		db, role string
		want     string
		set      bool
	}{
		{"shop", "app", "shadow, public", true},
		{"crm", "app", "other", true},
		{"shop", "someone", "public", true},
		{"crm", "someone", "", false},
		{"crm", "reporter", "public", true},
	} {
		if got, set := rp.effective(tc.db, tc.role); got != tc.want || set != tc.set {
			t.Errorf("effective(%s, %s) = %q, %v; want %q, %v", tc.db, tc.role, got, set, tc.want, tc.set)
		}
	}
	for _, tc := range []struct {
		db, role string
		differs  bool
	}{
		{"shop", "ops", false},     // the introspecting role itself
		{"shop", "app", true},      // shadow first
		{"crm", "someone", true},   // the server default, ops has audit first
		{"shop", "reporter", true}, // public against audit, public
	} {
		if got := rp.why(tc.db, tc.role) != ""; got != tc.differs {
			t.Errorf("why(%s, %s) differs %v, want %v", tc.db, tc.role, got, tc.differs)
		}
	}
	same := &rolePaths{self: "ops", byKey: map[rolePathKey]string{{"shop", ""}: "public"}}
	if why := same.why("shop", "app"); why != "" {
		t.Errorf("a database setting for every role: %q", why)
	}
	var none *rolePaths
	if why := none.why("shop", "app"); why != "" {
		t.Errorf("no settings read: %q", why)
	}
}

// TestBypassRoleSearchPath (issue 34, item 4): a role whose login
// search_path (ALTER ROLE ... SET) puts a schema with a same-named,
// nullable dogs first resolves the judged statement's names elsewhere
// than the introspecting superuser: enforce mode refuses its judged
// statements (PGQ02), where PostgreSQL would return another count; the
// superuser's own sessions are judged as before.
func TestBypassRoleSearchPath(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	direct := kennelDirect(t, ctx)
	for _, s := range []string{
		"CREATE SCHEMA IF NOT EXISTS rolepath_shadow",
		"CREATE TABLE IF NOT EXISTS rolepath_shadow.dogs (dog_id int, owner_id int, age int)",
		"INSERT INTO rolepath_shadow.dogs VALUES (1, NULL, 9)",
		"DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'rolepath_app') THEN CREATE ROLE rolepath_app LOGIN; END IF; END$$",
		"GRANT USAGE ON SCHEMA rolepath_shadow TO rolepath_app",
		"GRANT SELECT ON ALL TABLES IN SCHEMA rolepath_shadow, public TO rolepath_app",
		"ALTER ROLE rolepath_app SET search_path = rolepath_shadow, public",
	} {
		if _, err := direct.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	set := bypassSettings(t)
	in := Introspection{Upstream: proxy.Upstream{Address: pg.Addr(), TLSMode: proxy.TLSDisable}, User: pgtest.SuperUser, Timeout: 10 * time.Second}
	set.Schemas = SchemaSettings{Introspect: &in}
	e := startJudgeProxy(t, set, JudgingOptions{})
	q := countOwner + " " + tagRef(countStar)
	connect := func(user string) *pgx.Conn {
		conn, err := pgx.Connect(ctx, dbConnString(e.Host, e.Port, user, "", kennelDB))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(context.Background()) })
		return conn
	}
	// The superuser, as which the schema is read, is judged.
	if err := simpleExec(ctx, connect(pgtest.SuperUser), q); err != nil {
		t.Fatalf("the introspecting role: %v", err)
	}
	app := connect("rolepath_app")
	// What the refusal prevents: in app's session the two counts differ.
	var star, owner int
	if err := app.QueryRow(ctx, "SELECT count(*), count(owner_id) FROM dogs WHERE age > 5", pgx.QueryExecModeSimpleProtocol).Scan(&star, &owner); err != nil || star == owner {
		t.Fatalf("in rolepath_app's session count(*) %d, count(owner_id) %d (%v): the case shows nothing", star, owner, err)
	}
	err := simpleExec(ctx, app, q)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified || !strings.Contains(pgErr.Message, "search_path") {
		t.Fatalf("rolepath_app: got %v, want a PGQ02 refusal naming its search_path", err)
	}
}
