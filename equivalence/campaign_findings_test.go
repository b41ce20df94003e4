package equivalence_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestCampaignFindingsSQLite: two wrong equivalent labels the issue 33
// campaign found on SQLite (seeds 11 and 12), each checked on SQLite.
// SQLite reads x IS TRUE as "x is a non-zero number" (a flag holding 2
// is TRUE, though 2 = TRUE is false), and an EXCEPT of an INTEGER and a
// TEXT arm has no single affinity, which the except-to-anti-join rewrite
// gave it ('5' and 5.0 then compare alike).
func TestCampaignFindingsSQLite(t *testing.T) {
	const ddl = `CREATE TABLE sensor (name TEXT PRIMARY KEY, site TEXT);
CREATE TABLE reading (id INTEGER PRIMARY KEY, sensor TEXT NOT NULL REFERENCES sensor (name), flag BOOLEAN);`
	s, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	cases := []identityCase{
		{name: "IS TRUE over a value", a: "SELECT id FROM reading WHERE flag = true", b: "SELECT id FROM reading WHERE flag IS true",
			engine: "INSERT INTO sensor VALUES ('s', 'x'); INSERT INTO reading VALUES (1, 's', 2);"},
		{name: "IS TRUE over a comparison", a: "SELECT id FROM reading WHERE (flag = 1) = true", b: "SELECT id FROM reading WHERE (flag = 1) IS true", prove: true,
			engine: "INSERT INTO sensor VALUES ('s', 'x'); INSERT INTO reading VALUES (1, 's', 2), (2, 's', 1), (3, 's', NULL);"},
		{name: "EXCEPT of INTEGER and TEXT", a: "SELECT x FROM (SELECT id AS x FROM reading EXCEPT SELECT site FROM sensor) AS u WHERE x = '5'",
			b:      "SELECT x FROM (SELECT id AS x FROM reading EXCEPT SELECT site FROM sensor) AS u WHERE x = 5.0",
			engine: "INSERT INTO sensor VALUES ('s', 'x'); INSERT INTO reading VALUES (5, 's', NULL);"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if differ := liteDiffer(t, ddl, c.engine, c.a, c.b); differ == c.prove {
				t.Fatalf("engine: results differ = %v, the case expects %v", differ, !c.prove)
			}
			if v := judgeIdentity(t, s, c.a, c.b); proved(v) != c.prove {
				t.Fatalf("judged %s (%s), want proved = %v", v.Label, v.Summary(), c.prove)
			}
		})
	}
}

// TestCampaignFindingsPostgres: two wrong labels the issue 33 campaign
// found on PostgreSQL: a comparison of a text with a number (no such
// operator) proved equal to a query over an always-empty table, and
// min() over a uuid proved equal to ORDER BY ... LIMIT 1. PostgreSQL
// refuses both queries; the judge must not plan them.
func TestCampaignFindingsPostgres(t *testing.T) {
	const ddl = `CREATE TABLE never (id int PRIMARY KEY, x int, CHECK (false));
CREATE TABLE staff (id int PRIMARY KEY, tag uuid, span int4range, ok boolean);`
	s, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	conn := pgConnect(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, ddl); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ ok, bad string }{
		{"SELECT id FROM never WHERE x = 2", "SELECT id FROM never WHERE x::text = 2"},
		{"SELECT tag FROM staff ORDER BY tag LIMIT 1", "SELECT min(tag) FROM staff"},
		{"SELECT span FROM staff ORDER BY span LIMIT 1", "SELECT max(span) FROM staff"},
		{"SELECT bool_and(ok) FROM staff", "SELECT min(ok) FROM staff"},
	} {
		if _, err := conn.Exec(ctx, c.bad); err == nil {
			t.Fatalf("engine runs %s; the case expects an error", c.bad)
		}
		if _, err := conn.Exec(ctx, c.ok); err != nil {
			t.Fatalf("engine refuses %s: %v", c.ok, err)
		}
		if v := judgeIdentity(t, s, c.ok, c.bad); proved(v) {
			t.Errorf("%s / %s: judged %s, though PostgreSQL refuses the candidate", c.ok, c.bad, v.Label)
		}
	}
}
