package catalog_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

func report(t *testing.T, ddl string, d catalog.Dialect) (*catalog.Schema, []catalog.Dropped) {
	t.Helper()
	s, dropped, err := catalog.LoadDDLReport(ddl, d)
	if err != nil {
		t.Fatalf("%v\n%s", err, ddl)
	}
	return s, dropped
}

// TestPgDumpNoiseLoadsSilently: what pg_dump writes beside the tables
// cannot change a query's meaning and is not reported.
func TestPgDumpNoiseLoadsSilently(t *testing.T) {
	s, dropped := report(t, `
SET statement_timeout = 0;
SELECT pg_catalog.set_config('search_path', '', false);
CREATE EXTENSION IF NOT EXISTS pgcrypto WITH SCHEMA public;
CREATE SCHEMA app;
CREATE TABLE app.item (id integer NOT NULL, sku text);
ALTER TABLE app.item OWNER TO someone;
COMMENT ON TABLE app.item IS 'items';
CREATE SEQUENCE app.item_id_seq AS integer START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
ALTER SEQUENCE app.item_id_seq OWNED BY app.item.id;
ALTER TABLE ONLY app.item ALTER COLUMN id SET DEFAULT nextval('app.item_id_seq'::regclass);
ALTER TABLE app.item ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME app.item_id_seq2);
GRANT SELECT ON TABLE app.item TO PUBLIC;
REVOKE ALL ON SCHEMA public FROM PUBLIC;
ALTER TABLE ONLY app.item ADD CONSTRAINT item_pkey PRIMARY KEY (id);
CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;
\unrestrict abc
`, catalog.Postgres)
	if len(dropped) != 0 {
		t.Errorf("dropped %v", dropped)
	}
	if it := s.Table("item"); it == nil || !reflect.DeepEqual(it.PrimaryKey, []int{0}) || len(it.Unmodelled) != 0 {
		t.Errorf("item: %+v", it)
	}
}

// TestUnmodelledReported: statements that change what a query sees or
// what data is legal, and that the catalog cannot model, are reported
// with their line and put in the table's Unmodelled.
func TestUnmodelledReported(t *testing.T) {
	s, dropped := report(t, `CREATE TABLE t (id int PRIMARY KEY, p point, r int);
CREATE TABLE u (a int, EXCLUDE USING gist (a WITH =));
CREATE POLICY own ON t USING (id > 0);
CREATE RULE r AS ON INSERT TO t DO INSTEAD NOTHING;
CREATE TRIGGER tg BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION f();
CREATE TABLE w (x mystery);
CREATE TABLE h (k int) PARTITION BY HASH (k);
CREATE TABLE h0 PARTITION OF h FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE l (k int) PARTITION BY LIST (k);
CREATE TABLE ld PARTITION OF l DEFAULT;
ALTER TABLE t DROP CONSTRAINT nosuch;
ALTER TABLE t ENABLE ROW LEVEL SECURITY;`, catalog.Postgres)
	want := map[string][]string{
		"t":  {"CREATE POLICY own (line 3)", "CREATE RULE r (line 4)", "CREATE TRIGGER tg (line 5)", "DROP CONSTRAINT nosuch (line 11)", "ENABLE ROW LEVEL SECURITY (line 12)"},
		"u":  {"EXCLUDE constraint  (line 2)"},
		"w":  {"column x of unknown type mystery (line 6)"},
		"h":  {"HASH partition h0 (line 8)"},
		"h0": {"HASH partition of h (line 8)"},
		"l":  {"DEFAULT partition ld (line 10)"},
		"ld": {"DEFAULT partition of l (line 10)"},
	}
	for name, prefixes := range want {
		tb := s.Table(name)
		if tb == nil || len(tb.Unmodelled) != len(prefixes) {
			t.Errorf("%s: unmodelled %q, want %d", name, tb.Unmodelled, len(prefixes))
			continue
		}
		for i, p := range prefixes {
			if !strings.HasPrefix(tb.Unmodelled[i], p) {
				t.Errorf("%s: unmodelled %q, want prefix %q", name, tb.Unmodelled[i], p)
			}
		}
	}
	if len(dropped) != 11 {
		t.Errorf("dropped %d: %v", len(dropped), dropped)
	}
	if s.Table("t").Columns[1].Type != catalog.Unknown {
		t.Errorf("a built-in type the planner folds to unknown is not unmodelled")
	}
}

// TestAlterTableConstraints: keys, foreign keys and CHECKs added, made
// from an index, validated and dropped by ALTER TABLE.
func TestAlterTableConstraints(t *testing.T) {
	s, _ := report(t, `
CREATE TABLE p (id int NOT NULL, code text NOT NULL, n int, m int);
CREATE UNIQUE INDEX p_code_idx ON p (code);
ALTER TABLE p ADD CONSTRAINT p_pkey PRIMARY KEY USING INDEX p_code_idx;
ALTER TABLE p ADD CONSTRAINT p_id_key UNIQUE (id);
ALTER TABLE p ADD CONSTRAINT p_n_check CHECK (n > 0) NOT VALID;
ALTER TABLE p ADD CONSTRAINT p_m_check CHECK (m > 0) NOT VALID;
ALTER TABLE p VALIDATE CONSTRAINT p_m_check;
ALTER TABLE p ADD CONSTRAINT gone CHECK (m < 100);
ALTER TABLE p DROP CONSTRAINT gone;
ALTER TABLE p ALTER COLUMN n SET NOT NULL;
ALTER TABLE p ALTER COLUMN n DROP NOT NULL;
ALTER TABLE p ADD COLUMN extra int UNIQUE;
CREATE TABLE c (id int, pid int REFERENCES p (id) DEFERRABLE, qid int, rid int);
ALTER TABLE c ADD CONSTRAINT c_q FOREIGN KEY (qid) REFERENCES p (id) NOT VALID;
ALTER TABLE c ADD FOREIGN KEY (rid) REFERENCES p (id) INITIALLY DEFERRED;`, catalog.Postgres)
	p := s.Table("p")
	if !reflect.DeepEqual(p.PrimaryKey, []int{1}) || !reflect.DeepEqual(p.Unique, [][]int{{0}, {4}}) {
		t.Errorf("p keys: pk %v unique %v", p.PrimaryKey, p.Unique)
	}
	if !reflect.DeepEqual(p.Checks, []catalog.Check{{Name: "p_m_check", Expr: "m > 0"}}) {
		t.Errorf("p checks %+v", p.Checks)
	}
	if p.Columns[2].NotNull {
		t.Errorf("n: DROP NOT NULL")
	}
	c := s.Table("c")
	if len(c.ForeignKeys) != 0 || len(c.DeferrableForeignKeys) != 2 {
		t.Errorf("c: fks %+v deferrable %+v", c.ForeignKeys, c.DeferrableForeignKeys)
	}
}

// TestColumnFacts: generated columns, collations, domains over domains
// and enums after ALTER TYPE.
func TestColumnFacts(t *testing.T) {
	s, dropped := report(t, `
CREATE COLLATION public.ci (provider = icu, deterministic = false, locale = 'und-u-ks-level2');
CREATE TYPE public.mood AS ENUM ('sad', 'happy');
ALTER TYPE public.mood ADD VALUE 'ok' BEFORE 'happy';
ALTER TYPE public.mood ADD VALUE 'top';
CREATE DOMAIN public.pos AS numeric(10,2) CHECK (VALUE > 0);
CREATE DOMAIN public.small AS public.pos NOT NULL CHECK (VALUE < 10) COLLATE "C";
CREATE TABLE public.t (
  a int,
  b int GENERATED ALWAYS AS (a * 2) STORED,
  n text COLLATE public.ci,
  c text COLLATE "C",
  m public.mood,
  s public.small,
  ci citext,
  CHECK (a <> 3)
);`, catalog.Postgres)
	if len(dropped) != 0 {
		t.Errorf("dropped %v", dropped)
	}
	tb := s.Table("t")
	c := tb.Columns
	if c[1].Generated != "a * 2" {
		t.Errorf("generated %q", c[1].Generated)
	}
	if c[2].Collation != "ci" || !c[2].Nondeterministic || c[3].Collation != "C" || c[3].Nondeterministic {
		t.Errorf("collations %+v %+v", c[2], c[3])
	}
	if !slices.Equal(c[4].Enum, []string{"sad", "ok", "happy", "top"}) || c[4].Type != catalog.Text {
		t.Errorf("enum %+v", c[4])
	}
	if c[5].Domain != "small" || c[5].Type != catalog.Numeric || c[5].TypeSQL != "numeric(10,2)" || !c[5].NotNull {
		t.Errorf("domain column %+v", c[5])
	}
	if !c[6].Nondeterministic || c[6].Type != catalog.Text {
		t.Errorf("citext %+v", c[6])
	}
	var exprs []string
	for _, ck := range tb.Checks {
		exprs = append(exprs, ck.Expr)
	}
	if !slices.Equal(exprs, []string{"a <> 3", "s < 10", "s > 0"}) {
		t.Errorf("checks %q", exprs)
	}
}

// TestPartitionBounds: range bounds with MINVALUE/MAXVALUE over two
// columns, list bounds with NULL, partitions of partitions.
func TestPartitionBounds(t *testing.T) {
	s, _ := report(t, `
CREATE TABLE m (a int, b int, v text) PARTITION BY RANGE (a, b);
CREATE TABLE m1 PARTITION OF m FOR VALUES FROM (1, MINVALUE) TO (5, 10);
CREATE TABLE m2 (a int, b int, v text) PARTITION BY LIST (v);
ALTER TABLE ONLY m ATTACH PARTITION m2 FOR VALUES FROM (5, 10) TO (MAXVALUE, MAXVALUE);
CREATE TABLE m2x PARTITION OF m2 FOR VALUES IN ('x', NULL);`, catalog.Postgres)
	want := map[string]string{
		"m1":  `"a" IS NOT NULL AND "b" IS NOT NULL AND "a" >= 1 AND ("a" < 5 OR ("a" = 5 AND "b" < 10))`,
		"m2":  `"a" IS NOT NULL AND "b" IS NOT NULL AND ("a" > 5 OR ("a" = 5 AND "b" >= 10))`,
		"m2x": `("v" IS NULL OR "v" IN ('x'))`,
	}
	for name, b := range want {
		if got := s.Table(name).PartitionBound; got != b {
			t.Errorf("%s: bound %q, want %q", name, got, b)
		}
	}
	if ch := s.Children(s.Table("m")); len(ch) != 2 || len(s.Children(s.Table("m2"))) != 1 {
		t.Errorf("children of m %d", len(ch))
	}
	// m2x's rows satisfy m2's bound too.
	var checks []string
	for _, c := range s.Table("m2x").Checks {
		checks = append(checks, c.Expr)
	}
	if len(checks) != 2 || checks[0] != want["m2x"] || checks[1] != want["m2"] {
		t.Errorf("m2x checks %q", checks)
	}
	if m := s.Table("m"); !m.Partitioned || len(m.Columns) != 3 || s.Table("m1").Columns[2].Name != "v" {
		t.Errorf("m: %+v", m)
	}
}

// TestSQLiteDDL: real SQLite DDL loads with Dialect SQLite, lines kept.
func TestSQLiteDDL(t *testing.T) {
	s, _ := report(t, "CREATE TABLE `Order` (\n"+
		"  `id` INTEGER PRIMARY KEY AUTOINCREMENT,\n"+
		"  [name] varchar(20) COLLATE NOCASE NOT NULL,\n"+
		"  price float(10,2),\n"+
		"  qty int(11) unsigned,\n"+
		"  note text COLLATE RTRIM, -- `comment` with 'quotes'\n"+
		"  tag text DEFAULT 'a`b' ON CONFLICT REPLACE\n"+
		") WITHOUT ROWID;\n"+
		"CREATE TABLE t (x mystery);\n"+
		// SQLite's own table, as .schema prints it for a database with an
		// AUTOINCREMENT key (Spider's world_1): untyped columns, skipped.
		"CREATE TABLE sqlite_sequence(name,seq);\n"+
		"CREATE TABLE IF NOT EXISTS sqlite_stat1(tbl,idx,stat);\n", catalog.SQLite)
	if s.Table("sqlite_sequence") != nil || s.Table("sqlite_stat1") != nil {
		t.Error("SQLite's own tables are part of the schema")
	}
	tb := s.Table("order")
	if tb == nil || len(tb.Columns) != 6 {
		t.Fatalf("order: %+v", tb)
	}
	c := tb.Columns
	if c[0].Name != "id" || !reflect.DeepEqual(tb.PrimaryKey, []int{0}) || c[1].Name != "name" || !c[1].Nondeterministic || c[1].Collation != "nocase" {
		t.Errorf("columns %+v", c)
	}
	if c[2].Type != catalog.Float || c[3].Type != catalog.Int || !c[4].Nondeterministic {
		t.Errorf("types %+v", c)
	}
	if len(s.Table("t").Unmodelled) != 0 {
		t.Errorf("sqlite: an unknown type name is an affinity, not unmodelled")
	}
}
