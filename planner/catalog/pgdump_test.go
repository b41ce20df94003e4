package catalog_test

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/internal/catalogcheck"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// EverythingDB starts a PostgreSQL 15 cluster holding testdata/everything.sql
// (and the ICU part where the server has ICU) and returns a connection
// and the cluster.
func everythingDB(t *testing.T, ctx context.Context) (*pgx.Conn, *pgtest.Cluster, bool) {
	t.Helper()
	ddl, err := os.ReadFile("testdata/everything.sql")
	if err != nil {
		t.Fatal(err)
	}
	pg := pgtest.New(t, pgtest.Options{})
	conn, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	if _, err := conn.Exec(ctx, string(ddl)); err != nil {
		t.Fatalf("everything.sql: %v", err)
	}
	var icu int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_collation WHERE collprovider = 'i'`).Scan(&icu); err != nil {
		t.Fatal(err)
	}
	if icu == 0 {
		t.Log("the server has no ICU collations: the nondeterministic collation is not tested")
		return conn, pg, false
	}
	icuDDL, err := os.ReadFile("testdata/everything_icu.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, string(icuDDL)); err != nil {
		t.Fatalf("ICU collation: %v", err)
	}
	return conn, pg, true
}

// TestPgDumpCatalog is acceptance 3 of issue 18: a database using every
// feature the catalog reads, dumped with pg_dump --schema-only, loads
// with every constraint, as pg_constraint, pg_index, pg_attribute and
// pg_inherits list them.
func TestPgDumpCatalog(t *testing.T) {
	ctx := context.Background()
	conn, pg, icu := everythingDB(t, ctx)
	bin, err := pg.ClientBin("pg_dump")
	if err != nil {
		t.Fatalf("pg_dump: %v", err)
	}
	out, err := exec.CommandContext(ctx, bin, "--schema-only", "--no-owner", "-h", pg.Host, "-p", itoa(pg.Port), "-U", pgtest.SuperUser, pgtest.Database).Output()
	if err != nil {
		t.Fatalf("pg_dump: %v", err)
	}
	dump := string(out)
	s, dropped, err := catalog.LoadDDLReport(dump, catalog.Postgres)
	if err != nil {
		t.Fatalf("load the dump: %v\n%s", err, dump)
	}
	for _, d := range dropped {
		t.Logf("dropped: %s", d)
	}
	bad, err := catalogcheck.Compare(ctx, conn, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Error(b)
	}
	if t.Failed() {
		t.Logf("dump:\n%s", dump)
	}
	// The comparison itself catches a missing fact: without pg_dump's
	// ALTER TABLE that adds item's primary key, it must complain.
	cut := regexp.MustCompile(`(?m)^ALTER TABLE ONLY public\.item\s+ADD CONSTRAINT item_pkey[^;]*;`)
	if !cut.MatchString(dump) {
		t.Fatalf("the dump has no ALTER TABLE adding item_pkey:\n%s", dump)
	}
	// The foreign key to item (id) goes too: PostgreSQL refuses it
	// without the key, and so does the loader.
	fk := regexp.MustCompile(`(?m)^ALTER TABLE ONLY public\.supply\s+ADD CONSTRAINT supply_item_fkey[^;]*;`)
	if !fk.MatchString(dump) {
		t.Fatalf("the dump has no ALTER TABLE adding supply_item_fkey:\n%s", dump)
	}
	less, err := catalog.LoadDDL(fk.ReplaceAllString(cut.ReplaceAllString(dump, ""), ""), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	if bad, err := catalogcheck.Compare(ctx, conn, less); err != nil || !slices.ContainsFunc(bad, func(b string) bool { return strings.Contains(b, "item: primary key") }) {
		t.Errorf("without item's primary key the comparison says %q (%v)", bad, err)
	}
	// The facts Compare does not see: partition bounds, view, ICU.
	checkExtraFacts(t, s, icu)
	// Nothing in the dump is unmodelled except what the schema asks for.
	for _, tb := range s.Tables {
		if len(tb.Unmodelled) > 0 {
			t.Errorf("%s: unmodelled %q", tb.Name, tb.Unmodelled)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// checkExtraFacts checks what catalogcheck.Compare cannot read back from
// the database as plainly: partition bounds, the view, the enum order
// after ALTER TYPE, nondeterministic collation.
func checkExtraFacts(t *testing.T, s *catalog.Schema, icu bool) {
	t.Helper()
	want := map[string]string{
		"measure_2020": `"at" IS NOT NULL AND "at" >= '2020-01-01' AND "at" < '2021-01-01'`,
		"measure_old":  `"at" IS NOT NULL AND "at" < '2020-01-01'`,
		"region_eu":    `"code" IS NOT NULL AND "code" IN ('de', 'fr')`,
		"region_null":  `("code" IS NULL OR "code" IN ('us'))`,
	}
	for name, b := range want {
		tb := s.Table(name)
		if tb == nil {
			t.Errorf("%s missing", name)
			continue
		}
		if got := strings.ReplaceAll(tb.PartitionBound, "::date", ""); got != b {
			t.Errorf("%s: bound %q, want %q", name, tb.PartitionBound, b)
		}
	}
	if v := s.Table("cheap"); v == nil || !v.IsView() {
		t.Errorf("view cheap: %+v", v)
	}
	if m := s.Table("measure"); m != nil && len(s.Children(m)) != 2 {
		t.Errorf("measure: children %d, want 2", len(s.Children(m)))
	}
	if c := s.Table("car"); c == nil || len(c.Columns) != 3 || c.Columns[0].Name != "vid" {
		t.Errorf("car: columns %+v", c)
	}
	if icu {
		p := s.Table("person")
		if p == nil || !p.Columns[1].Nondeterministic || p.Columns[2].Nondeterministic || p.Columns[2].Collation != "C" {
			t.Errorf("person collations: %+v", p)
		}
	}
}
