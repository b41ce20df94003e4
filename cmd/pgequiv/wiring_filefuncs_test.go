package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/judging"
)

// TestSchemaFilesDeclareFunctions (issue 34, item 3): the judge gets
// what schema.files and schema.databases declare of functions, so that a
// call of a function they declare STABLE is judged and one they declare
// VOLATILE, or do not declare, is refused for its side effects.
func TestSchemaFilesDeclareFunctions(t *testing.T) {
	dir := t.TempDir()
	ddl := filepath.Join(dir, "schema.sql")
	if err := os.WriteFile(ddl, []byte(`CREATE TABLE t (id int PRIMARY KEY);
CREATE FUNCTION f_stable(a int) RETURNS int LANGUAGE sql STABLE AS $$SELECT a$$;
CREATE FUNCTION f_writes(a int) RETURNS int LANGUAGE sql AS $$INSERT INTO t VALUES (a) RETURNING 1$$;`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := config.Parse([]byte("upstream:\n  address: 127.0.0.1:5432\nschema:\n  files: [" + ddl + "]\n  databases:\n    shop: [" + ddl + "]\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := judgeSettings(c, proxy.Upstream{Address: c.Upstream.Address})
	if err != nil {
		t.Fatal(err)
	}
	for what, ff := range map[string]*judging.FileFunctions{"schema.files": s.Schemas.DefaultFunctions, "schema.databases.shop": s.Schemas.Functions["shop"]} {
		if ff == nil {
			t.Fatalf("%s: no functions read", what)
		}
		for sql, want := range map[string]string{
			"SELECT f_stable(id), upper('x') FROM t": "",
			"SELECT f_writes(id) FROM t":             "a call of f_writes (the schema files declare it VOLATILE)",
			"SELECT f_other(id) FROM t":              "a call of f_other (not a built-in",
		} {
			got, err := ff.CallsWhy(sql)
			if err != nil || want == "" && got != "" || want != "" && !strings.Contains(got, want) {
				t.Errorf("%s: %s: got %q (%v), want %q", what, sql, got, err, want)
			}
		}
	}
}
