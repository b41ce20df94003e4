package judging

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/internal/catalogcheck"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestIntrospectEveryConstraint: the schema read from pg_catalog of a
// database using every constraint kind the catalog models (the one
// TestPgDumpCatalog dumps) holds each of them as pg_constraint, pg_index,
// pg_attribute and pg_inherits list them.
func TestIntrospectEveryConstraint(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("..", "..", "planner", "catalog", "testdata")
	ddl, err := os.ReadFile(filepath.Join(dir, "everything.sql"))
	if err != nil {
		t.Fatal(err)
	}
	pg := pgtest.New(t, pgtest.Options{})
	conn, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, string(ddl)); err != nil {
		t.Fatal(err)
	}
	var icu int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_collation WHERE collprovider = 'i'`).Scan(&icu); err != nil {
		t.Fatal(err)
	}
	if icu > 0 {
		icuDDL, err := os.ReadFile(filepath.Join(dir, "everything_icu.sql"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, string(icuDDL)); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Log("the server has no ICU collations: the nondeterministic collation is not tested")
	}
	// What the loader must mark unmodelled, read back from pg_catalog.
	if _, err := conn.Exec(ctx, `
CREATE TABLE audited (id int PRIMARY KEY);
CREATE FUNCTION noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
CREATE TRIGGER audited_noop BEFORE INSERT ON audited FOR EACH ROW EXECUTE FUNCTION noop();
CREATE TABLE secret (id int PRIMARY KEY);
ALTER TABLE secret ENABLE ROW LEVEL SECURITY;
CREATE TABLE h (k int) PARTITION BY HASH (k);
CREATE TABLE h0 PARTITION OF h FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE h1 PARTITION OF h FOR VALUES WITH (MODULUS 2, REMAINDER 1);`); err != nil {
		t.Fatal(err)
	}
	tables, views, err := introspectDDL(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	s, dropped, err := catalog.LoadDDLReport(tables+views, catalog.Postgres)
	if err != nil {
		t.Fatalf("load: %v\n%s%s", err, tables, views)
	}
	bad, err := catalogcheck.Compare(ctx, conn, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Error(b)
	}
	// A trigger fires on writes only, which the proxy never judges:
	// audited is read as a plain table (issue 34, item 10).
	for _, name := range []string{"secret", "h", "h0", "h1"} {
		if tb := s.Table(name); tb == nil || len(tb.Unmodelled) == 0 {
			t.Errorf("%s: not marked unmodelled: %+v", name, tb)
		}
	}
	for _, tb := range s.Tables {
		switch tb.Name {
		case "secret", "h", "h0", "h1":
		default:
			if len(tb.Unmodelled) > 0 {
				t.Errorf("%s: unmodelled %q", tb.Name, tb.Unmodelled)
			}
		}
	}
	if p := s.Table("measure_2020"); p == nil || p.PartitionBound == "" {
		t.Errorf("measure_2020: no partition bound")
	}
	if v := s.Table("cheap"); v == nil || !v.IsView() {
		t.Errorf("view cheap missing")
	}
	if icu > 0 {
		if p := s.Table("person"); p == nil || !p.Columns[1].Nondeterministic || p.Columns[2].Collation != "C" {
			t.Errorf("person collations: %+v", p)
		}
	}
	if t.Failed() {
		t.Logf("dropped %v\nDDL:\n%s%s", dropped, tables, views)
	}
}
