package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzLoadDDL: DDL of either dialect, however malformed, loads or is
// refused with an error, never a panic; and the SQLite column rewrite
// keeps every line where it was and leaves text without a CREATE TABLE
// alone.
//
//	go test ./planner/catalog -run '^$' -fuzz FuzzLoadDDL -fuzztime 2m
func FuzzLoadDDL(f *testing.F) {
	for _, s := range []string{
		"CREATE TABLE t (a INT, b)",
		"CREATE TABLE t (q INT, h INTEGER AS (q / 2) VIRTUAL, raw, CHECK (q > 0))",
		"CREATE TABLE t (q INT, h AS (abs(q)) NOT NULL, PRIMARY KEY (q)) WITHOUT ROWID",
		"CREATE TABLE 'x' (`a` int(11) AUTOINCREMENT, [b] TEXT COLLATE NOCASE)",
		"CREATE TABLE t AS SELECT 1; CREATE VIEW v (a) AS SELECT 1",
		"CREATE TABLE t (a text); ALTER TABLE ONLY t ADD CONSTRAINT k PRIMARY KEY (a);",
		"CREATE DOMAIN d AS int CHECK (VALUE > 0); CREATE TYPE e AS ENUM ('a'); CREATE TABLE t (x d, y e)",
		"CREATE TABLE t (a int GENERATED ALWAYS AS (1",
		"CREATE TABLE t (a AS (",
		"CREATE TABLE t (",
	} {
		f.Add(s)
	}
	for _, pattern := range []string{"testdata/*.sql", "../../eval/campaign/testdata/*/*.sql", "example.sql"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(string(b))
			}
		}
	}
	f.Fuzz(func(t *testing.T, ddl string) {
		if len(ddl) > 1<<16 {
			return
		}
		start := time.Now()
		_, _, _ = LoadDDLReport(ddl, Postgres)
		_, _, _ = LoadDDLReport(ddl, SQLite)
		if d := time.Since(start); d > time.Second {
			t.Fatalf("loading %d bytes of DDL took %v: %q", len(ddl), d, ddl)
		}
		out := sqliteColumnDefs(ddl)
		if strings.Count(out, "\n") != strings.Count(ddl, "\n") {
			t.Fatalf("sqliteColumnDefs moved lines:\n%q\n%q", ddl, out)
		}
		if !strings.Contains(strings.ToLower(ddl), "create") && out != ddl {
			t.Fatalf("sqliteColumnDefs changed text without a CREATE:\n%q\n%q", ddl, out)
		}
	})
}
