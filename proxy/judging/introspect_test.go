package judging

import (
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/proxy"
)

// TestJudgeIntrospectedSchema: with no DDL configured the schema is read
// from the upstream's catalog, and DDL through the proxy refreshes it.
func TestJudgeIntrospectedSchema(t *testing.T) {
	setupKennel(t)
	ctx := testCtx(t, 60*time.Second)
	admin := connectDirect(t, ctx)
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS intro WITH (FORCE)"); err != nil { // -count > 1
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE intro"); err != nil {
		t.Fatal(err)
	}
	direct, err := pgx.Connect(ctx, dbConnString(pg.Host, pg.Port, pgtest.SuperUser, "", "intro"))
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close(ctx)
	if _, err := direct.Exec(ctx, `
CREATE TABLE people (id int PRIMARY KEY, email text UNIQUE, name text NOT NULL, "Mixed Case" numeric(10,2));
CREATE TABLE pets (id int PRIMARY KEY, owner_id int NOT NULL REFERENCES people (id), tag varchar(20));
CREATE UNIQUE INDEX pets_tag ON pets (tag);
CREATE INDEX pets_owner ON pets (owner_id);
CREATE VIEW named AS SELECT name FROM people WHERE email IS NOT NULL;
CREATE SCHEMA hidden; CREATE TABLE hidden.secret (x int);
INSERT INTO people VALUES (1, 'a@b', 'Ann', 1.5);
INSERT INTO pets VALUES (1, 1, 't1');`); err != nil {
		t.Fatal(err)
	}
	in := Introspection{Upstream: proxy.Upstream{Address: pg.Addr(), TLSMode: proxy.TLSDisable}, User: pgtest.SuperUser, Timeout: 10 * time.Second}
	s, ddl, err := Introspect(ctx, in, "intro")
	if err != nil {
		t.Fatalf("%v\n%s", err, ddl)
	}
	for _, want := range []string{`"Mixed Case" numeric(10,2)`, "PRIMARY KEY (id)", "UNIQUE (email)", "FOREIGN KEY (owner_id) REFERENCES people(id)",
		"CREATE UNIQUE INDEX pets_tag", `CREATE VIEW "named" ("name") AS`, `"owner_id" integer NOT NULL`, "character varying(20)"} {
		if !strings.Contains(ddl, want) {
			t.Errorf("DDL lacks %q:\n%s", want, ddl)
		}
	}
	if strings.Contains(ddl, "secret") || strings.Contains(ddl, "pets_owner") {
		t.Errorf("DDL has relations off the search path or non-unique indexes:\n%s", ddl)
	}
	if s.Table("pets") == nil || s.Table("named") == nil || len(s.Table("pets").ForeignKeys) != 1 || len(s.Table("pets").Unique) != 1 {
		t.Fatalf("schema misses tables or keys:\n%s", ddl)
	}

	set := JudgeSettings{Mode: ModeAnnotate, VerdictTimeout: 20 * time.Second, Schemas: SchemaSettings{Introspect: &in}}
	e := startJudgeProxy(t, set, JudgingOptions{})
	conn, notices := e.connectNotices(t, ctx, "intro")
	q := withComment("SELECT count(owner_id) FROM pets", "SELECT count(*) FROM pets")
	if _, err := conn.Exec(ctx, q); err != nil {
		t.Fatal(err)
	}
	if ns := notices(); len(ns) != 1 || !strings.HasPrefix(ns[0], equivNotice) || !strings.Contains(ns[0], "count-star-not-null") {
		t.Fatalf("with NOT NULL introspected: %q", ns)
	}
	// DDL through the proxy refreshes the schema: without NOT NULL,
	// count(owner_id) no longer counts every row.
	if _, err := conn.Exec(ctx, "ALTER TABLE pets ALTER COLUMN owner_id DROP NOT NULL"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, q); err != nil {
		t.Fatal(err)
	}
	if ns := notices(); len(ns) != 1 || strings.HasPrefix(ns[0], equivNotice) {
		t.Fatalf("after DROP NOT NULL: %q", ns)
	}
	if st := statMap(e.j); st["introspections"] < 2 || st["introspection_failures"] != 0 {
		t.Fatalf("stats %v", st)
	}
	// With a refresh interval every use past it reads the schema again.
	before := statMap(e.j)["introspections"]
	set.Schemas.RefreshInterval = time.Nanosecond
	if err := e.j.Reload(set); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	notices()
	if got := statMap(e.j)["introspections"]; got != before+2 {
		t.Fatalf("%d introspections after two uses past the interval, want %d", got, before+2)
	}
	// A database without a schema source says so.
	e.j.Reload(JudgeSettings{Mode: ModeAnnotate})
	if _, err := conn.Exec(ctx, q); err != nil {
		t.Fatal(err)
	}
	if ns := notices(); len(ns) != 1 || !strings.Contains(ns[0], "no schema") {
		t.Fatalf("without a schema source: %q", ns)
	}
}
