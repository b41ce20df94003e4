package exec_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

const uuidDDL = `CREATE TABLE tu (id integer PRIMARY KEY, u uuid, v uuid NOT NULL, s text);`

// uuidPools spell a few uuids several ways (case, braces, dashes), so
// that equal uuids written apart meet, and vary the leading digits, so
// that order is tested beyond the first byte.
var uuidPools = map[catalog.Type][]string{
	catalog.UUID: {"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}",
		"a0eebc999c0b4ef8bb6d6bb9bd380a12", "0a000000-0000-0000-0000-000000000000", "f0000000-0000-0000-0000-00000000000f",
		"9fffffff-ffff-ffff-ffff-ffffffffffff", "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11"},
	catalog.Text: {"x", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", ""},
}

// uuidQueries compare, order, group, cast and concatenate uuids.
var uuidQueries = []string{
	"SELECT id, u, v FROM tu ORDER BY u, v, id",
	"SELECT id FROM tu ORDER BY v DESC, id",
	"SELECT id FROM tu WHERE u = v",
	"SELECT id FROM tu WHERE u < v OR u >= 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'",
	"SELECT id FROM tu WHERE v = 'a0eebc999c0b4ef8bb6d6bb9bd380a11'",
	"SELECT id FROM tu WHERE v IN ('{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12}', '0a000000-0000-0000-0000-000000000000')",
	"SELECT DISTINCT v FROM tu",
	"SELECT v, count(*) FROM tu GROUP BY v",
	"SELECT u FROM tu UNION SELECT v FROM tu",
	"SELECT u::text, v::text || '/' || s FROM tu",
	"SELECT id FROM tu WHERE u::text = s",
	"SELECT a.id, b.id FROM tu a JOIN tu b ON a.u = b.v",
	"SELECT id FROM tu WHERE u IS DISTINCT FROM v",
	"SELECT s::uuid FROM tu",
	"SELECT id FROM tu WHERE s::uuid = v",
	"SELECT coalesce(u, 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11') FROM tu",
	"SELECT u FROM tu UNION ALL SELECT '{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}'",
	"SELECT CASE WHEN id > 2 THEN u ELSE 'F0000000000000000000000000000000' END FROM tu",
}

// uuidCases are uuid literals, casts and comparisons over "one" with
// PostgreSQL's results (TestUUIDText checks each there).
var uuidCases = []struct{ expr, want string }{
	{`'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid`, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
	{`'{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}'::uuid`, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
	{`'a0eebc999c0b4ef8bb6d6bb9bd380a11'::uuid`, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
	{`'a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11'::uuid`, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
	{`'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1'::uuid`, queryError},
	{`' a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid`, queryError},
	{`'a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11'::uuid`, queryError},
	{`'g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid`, queryError},
	{`'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-'::uuid`, queryError},
	{`'{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid`, queryError},
	{`'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid = 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid`, "true"},
	{`'0a000000-0000-0000-0000-000000000000'::uuid < '9fffffff-ffff-ffff-ffff-ffffffffffff'::uuid`, "true"},
	{`'a0000000-0000-0000-0000-000000000000'::uuid < '9fffffff-ffff-ffff-ffff-ffffffffffff'::uuid`, "false"},
	{`'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid::text`, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
	{`'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid || 'x'`, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11x"},
	{`NULL::uuid = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid`, "NULL"},
	// A quoted literal beside a uuid in coalesce or CASE is a uuid.
	{`coalesce(NULL::uuid, 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11')`, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
	{`CASE WHEN id = 2 THEN NULL::uuid ELSE '{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}' END`, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
	{`coalesce(NULL::uuid, 'nope')`, queryError},
}

// TestUUID evaluates uuidCases with the executor.
func TestUUID(t *testing.T) {
	ctx := context.Background()
	s, err := catalog.LoadDDL(datetimeOneDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	db := exec.Database{"one": {{exec.Int(1), exec.Null, exec.Null, exec.Null}}}
	for _, tc := range uuidCases {
		if got := evalOne(ctx, t, s, db, tc.expr); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
}

// TestUUIDText checks uuidCases on PostgreSQL.
func TestUUIDText(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	conn := pgConn(t, ctx, datetimeOneDDL+" INSERT INTO one VALUES (1, NULL, NULL, NULL);")
	for _, tc := range uuidCases {
		if got := pgOne(ctx, t, conn, tc.expr); got != tc.want {
			t.Errorf("PostgreSQL: %s = %s, the case says %s", tc.expr, got, tc.want)
		}
	}
}

// TestDifferentialUUID runs uuidQueries on generated instances, uuids
// spelled apart included, with the executor and PostgreSQL.
func TestDifferentialUUID(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	conn := pgConn(t, ctx, uuidDDL)
	schema, err := catalog.LoadDDL(uuidDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	db := exec.Database{"tu": {{exec.Int(1), exec.Text("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), exec.Text("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), exec.Text("x")}}}
	checkExecutes(t, ctx, schema, db, uuidQueries, nil, nil)
	differentialWith(t, conn, uuidDDL, uuidQueries, max(40, pgInstances(t)), uuidPools)
}
