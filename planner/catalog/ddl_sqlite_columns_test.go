package catalog

import (
	"strings"
	"testing"
)

// TestSQLiteColumnDefs: the column forms SQLite accepts and PostgreSQL's
// grammar refuses are rewritten, and nothing else is: table constraints,
// CHECK and DEFAULT expressions (CAST ... AS), CREATE TABLE ... AS
// SELECT, indexes, views and virtual tables keep their text.
func TestSQLiteColumnDefs(t *testing.T) {
	u := " " + sqliteUntyped
	cases := []struct{ name, in, want string }{
		{"untyped last", "CREATE TABLE t (a INT, b)", "CREATE TABLE t (a INT, b" + u + ")"},
		{"untyped first", "CREATE TABLE t (a, b INT)", "CREATE TABLE t (a" + u + ", b INT)"},
		{"untyped all", "CREATE TABLE t(a,b,c);", "CREATE TABLE t(a" + u + ",b" + u + ",c" + u + ");"},
		{"untyped with constraints", "CREATE TABLE t (a PRIMARY KEY, b NOT NULL, c DEFAULT 1, d REFERENCES t)",
			"CREATE TABLE t (a" + u + " PRIMARY KEY, b" + u + " NOT NULL, c" + u + " DEFAULT 1, d" + u + " REFERENCES t)"},
		{"untyped quoted name", `CREATE TABLE t ("order", "x" UNIQUE)`, `CREATE TABLE t ("order"` + u + `, "x"` + u + ` UNIQUE)`},
		{"temp table", "CREATE TEMP TABLE t (a)", "CREATE TEMP TABLE t (a" + u + ")"},
		{"if not exists", "CREATE TABLE IF NOT EXISTS t (a)", "CREATE TABLE IF NOT EXISTS t (a" + u + ")"},
		{"table constraints kept", "CREATE TABLE t (a INT, b INT, PRIMARY KEY (a, b), UNIQUE (b), CHECK (a > 0), FOREIGN KEY (b) REFERENCES u (x), CONSTRAINT c CHECK (b < 9))",
			"CREATE TABLE t (a INT, b INT, PRIMARY KEY (a, b), UNIQUE (b), CHECK (a > 0), FOREIGN KEY (b) REFERENCES u (x), CONSTRAINT c CHECK (b < 9))"},
		{"bare AS", "CREATE TABLE t (q INT, h INTEGER AS (q / 2))", "CREATE TABLE t (q INT, h INTEGER generated always AS (q / 2) stored)"},
		{"bare AS virtual", "CREATE TABLE t (q INT, h INT AS (q / 2) VIRTUAL, z INT)", "CREATE TABLE t (q INT, h INT generated always AS (q / 2) stored, z INT)"},
		{"bare AS stored", "CREATE TABLE t (q INT, h INT AS (q) STORED)", "CREATE TABLE t (q INT, h INT generated always AS (q) STORED)"},
		{"bare AS untyped", "CREATE TABLE t (q INT, h AS (abs(q)) NOT NULL)", "CREATE TABLE t (q INT, h" + u + " generated always AS (abs(q)) stored NOT NULL)"},
		{"generated always virtual", "CREATE TABLE t (q INT, h INT GENERATED ALWAYS AS (q + 1) VIRTUAL)", "CREATE TABLE t (q INT, h INT GENERATED ALWAYS AS (q + 1) stored)"},
		{"generated always plain", "CREATE TABLE t (q INT, h INT GENERATED ALWAYS AS (q + 1))", "CREATE TABLE t (q INT, h INT GENERATED ALWAYS AS (q + 1) stored)"},
		{"generated always stored", "CREATE TABLE t (q INT, h INT GENERATED ALWAYS AS (q + 1) STORED)", "CREATE TABLE t (q INT, h INT GENERATED ALWAYS AS (q + 1) STORED)"},
		{"cast in check", "CREATE TABLE t (q INT CHECK (CAST(q AS INT) > 0), r TEXT DEFAULT (CAST(1 AS TEXT)))",
			"CREATE TABLE t (q INT CHECK (CAST(q AS INT) > 0), r TEXT DEFAULT (CAST(1 AS TEXT)))"},
		{"create table as select", "CREATE TABLE t AS SELECT a, b FROM u", "CREATE TABLE t AS SELECT a, b FROM u"},
		{"index and view", "CREATE INDEX i ON t (a, b); CREATE VIEW v (a, b) AS SELECT a, b FROM t", "CREATE INDEX i ON t (a, b); CREATE VIEW v (a, b) AS SELECT a, b FROM t"},
		{"virtual table", "CREATE VIRTUAL TABLE f USING fts5(a, b)", "CREATE VIRTUAL TABLE f USING fts5(a, b)"},
		{"comments and strings", "CREATE TABLE t (a INT -- b, c\n, d TEXT DEFAULT 'x, y' /* e, f */)", "CREATE TABLE t (a INT -- b, c\n, d TEXT DEFAULT 'x, y' /* e, f */)"},
		{"type of several words", "CREATE TABLE t (a BIG INT NOT NULL, b VARYING CHARACTER(255), c INT AUTO_INCREMENT, d LONG  TEXT)",
			`CREATE TABLE t (a "BIG INT" NOT NULL, b "VARYING CHARACTER"(255), c "INT AUTO_INCREMENT", d "LONG TEXT")`},
		{"type words on two lines", "CREATE TABLE t (a BIG\nINT)", "CREATE TABLE t (a BIG\nINT)"},
		{"types PostgreSQL reads in several words", "CREATE TABLE t (a DOUBLE PRECISION, b CHARACTER VARYING(5), c TIMESTAMP WITH TIME ZONE, d NATIONAL CHARACTER(3))",
			"CREATE TABLE t (a DOUBLE PRECISION, b CHARACTER VARYING(5), c TIMESTAMP WITH TIME ZONE, d NATIONAL CHARACTER(3))"},
		{"second statement", "CREATE TABLE u (x INT); CREATE TABLE t (a)", "CREATE TABLE u (x INT); CREATE TABLE t (a" + u + ")"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := sqliteColumnDefs(c.in)
			if got != c.want {
				t.Fatalf("\n got %s\nwant %s", got, c.want)
			}
			if strings.Count(got, "\n") != strings.Count(c.in, "\n") {
				t.Fatal("lines moved")
			}
		})
	}
}

// TestLoadDDLSQLiteColumnForms: DDL that SQLite accepts with untyped and
// generated columns in SQLite's spellings loads, with the untyped column
// of no type and each generated column its expression.
func TestLoadDDLSQLiteColumnForms(t *testing.T) {
	s, err := LoadDDL(`CREATE TABLE reading (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  raw,
  val INTEGER,
  doubled AS (val * 2),
  label TEXT COLLATE NOCASE GENERATED ALWAYS AS (upper(raw)) VIRTUAL,
  score REAL,
  big UNSIGNED BIG INT,
  CHECK (val > 0)
);`, SQLite)
	if err != nil {
		t.Fatal(err)
	}
	tab := s.Table("reading")
	want := []struct {
		name, typeSQL, generated string
		typ                      Type
	}{
		{"id", "int4", "", Int}, {"raw", "", "", Unknown}, {"val", "int4", "", Int},
		{"doubled", "", "val * 2", Unknown}, {"label", "text", "upper(raw)", Text},
		// SQLite's REAL is a double: not PostgreSQL's float4 (single).
		{"score", "REAL", "", Float},
		// SQLite takes any words as a type; sqlitefile reads them as the
		// name, whose affinity SQLite's rules give (it contains INT).
		{"big", "BIG INT", "", Int},
	}
	if len(tab.Columns) != len(want) {
		t.Fatalf("columns %+v", tab.Columns)
	}
	for i, w := range want {
		c := tab.Columns[i]
		if c.Name != w.name || c.Type != w.typ || c.Generated != w.generated || (w.typeSQL == "REAL" || w.typeSQL == "BIG INT") && c.TypeSQL != w.typeSQL {
			t.Errorf("column %d: %s %v %q gen %q, want %s %v gen %q", i, c.Name, c.Type, c.TypeSQL, c.Generated, w.name, w.typ, w.generated)
		}
	}
	if c := tab.Columns[4]; !c.Nondeterministic {
		t.Error("label's NOCASE lost")
	}
	if len(tab.Checks) != 1 || len(tab.Unmodelled) != 0 {
		t.Errorf("checks %+v, unmodelled %q", tab.Checks, tab.Unmodelled)
	}
}
