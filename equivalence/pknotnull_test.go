package equivalence

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestReadNullableKeyTables: the probe under the keys-not-NULL schema is
// offered only for queries that read a table with a nullable key and
// refer to a key column (by name, a star or a NATURAL join); a pair that
// refers to none is judged under the declared schema alone.
func TestReadNullableKeyTables(t *testing.T) {
	const ddl = `CREATE TABLE sensor (name TEXT PRIMARY KEY, site TEXT, val INTEGER);
CREATE TABLE "odd key" ("Probe Code" TEXT PRIMARY KEY, site TEXT);
CREATE TABLE reading (id INTEGER PRIMARY KEY, sensor TEXT, val INTEGER);`
	s, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	assumed, nullable := pkNotNullSchema(s)
	if assumed == nil || !nullable["sensor"] || !nullable["odd key"] || nullable["reading"] {
		t.Fatalf("nullable keys %v, want sensor and odd key", nullable)
	}
	cases := []struct {
		ref, cand string
		want      []string // nil: no probe
	}{
		{"SELECT count(*) FROM sensor", "SELECT count(name) FROM sensor", []string{"sensor"}},
		{"SELECT DISTINCT name FROM sensor", "SELECT name FROM sensor", []string{"sensor"}},
		{"SELECT * FROM sensor", "SELECT site, val, name FROM sensor", []string{"sensor"}},
		{"SELECT site FROM sensor NATURAL JOIN reading", "SELECT site FROM sensor", []string{"sensor"}},
		{"SELECT count(*) FROM reading JOIN sensor USING (name)", "SELECT 1", []string{"sensor"}},
		{"SELECT site FROM \"odd key\"", "SELECT site FROM \"odd key\" WHERE \"Probe Code\" IS NOT NULL", []string{"odd key"}},
		{"SELECT val * 2 FROM sensor", "SELECT val + val FROM sensor", []string{"sensor"}},
		// No key column: the same plans and proof under either schema.
		{"SELECT count(*) FROM sensor WHERE site = 'a'", "SELECT count( * ) FROM sensor WHERE 'a' = site", nil},
		{"SELECT max(val), site FROM sensor GROUP BY site", "SELECT site, max(val) FROM sensor GROUP BY 1", nil},
		{"SELECT site FROM \"odd key\"", "SELECT DISTINCT site FROM \"odd key\"", nil},
		{"SELECT count(id) FROM reading", "SELECT count(*) FROM reading", nil},
	}
	for _, c := range cases {
		read := readNullableKeyTables(context.Background(), assumed, nullable, c.ref, c.cand)
		got := slices.Sorted(maps.Keys(read))
		if len(got) == 0 {
			got = nil
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s / %s: probe for %v, want %v", c.ref, c.cand, got, c.want)
		}
	}
}
