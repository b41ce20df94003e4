package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/config"
)

// TestFileErrorsNameTheirPlace: a DDL syntax error names the schema file,
// line and column (in both modes), and a missing catalog file is named
// once, without package prefixes repeated.
func TestFileErrorsNameTheirPlace(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("a.sql", "CREATE TABLE a (id int PRIMARY KEY);\n")
	write("b.sql", "-- b\nCREATE TABLE b (\n  id int,\n  name text,\n);\n")
	for _, tc := range []struct {
		name, yaml string
		build      func(*config.Config) error
		want       string
	}{
		{"relay schema", "upstream:\n  address: 127.0.0.1:5432\nmode: annotate\nschema:\n  files: [a.sql, b.sql]\n",
			func(c *config.Config) error {
				po, err := proxyOptions(c)
				if err == nil {
					_, err = judgeSettings(c, po.Upstream)
				}
				return err
			},
			`config: schema.files: b.sql:5:1: syntax error at or near ")"`},
		{"database-free schema", "upstream: none\nschema:\n  files: [a.sql, b.sql]\n",
			func(c *config.Config) error { _, err := dbfreeOptions(c); return err },
			`config: schema.files: b.sql:5:1: syntax error at or near ")"`},
		{"missing catalog", "upstream: none\ncatalog: nowhere.yaml\n",
			func(c *config.Config) error { _, err := dbfreeOptions(c); return err },
			"config: catalog: open " + filepath.Join(dir, "nowhere.yaml") + ": no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write("proxy.yaml", tc.yaml)
			c, err := loadConfigFile(filepath.Join(dir, "proxy.yaml"), nil)
			if err != nil {
				t.Fatal(err)
			}
			err = tc.build(c)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v\nwant       %s", err, tc.want)
			}
			if strings.Count(err.Error(), "catalog") > 1 || strings.Contains(err.Error(), "tag:") {
				t.Errorf("repeated prefixes: %v", err)
			}
		})
	}
}
