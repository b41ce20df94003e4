package planner_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
)

// TestJSONEqualityAsPostgres: json has no equality operator in
// PostgreSQL (jsonb has), so DISTINCT, GROUP BY and set operations
// without ALL over a json column are refused as PostgreSQL refuses them;
// the planner must agree with PostgreSQL on each query (issue 18, dialect
// fidelity; the soundness campaign found SELECT DISTINCT id, note proved
// equivalent to SELECT id, note though PostgreSQL rejects the first).
func TestJSONEqualityAsPostgres(t *testing.T) {
	const ddl = `CREATE TABLE o (id int PRIMARY KEY, note json, meta jsonb);`
	queries := []string{
		"SELECT DISTINCT id, note FROM o",
		"SELECT DISTINCT id, meta FROM o",
		"SELECT note FROM o GROUP BY note",
		"SELECT meta FROM o GROUP BY meta",
		"SELECT note FROM o UNION SELECT note FROM o",
		"SELECT note FROM o UNION ALL SELECT note FROM o",
		"SELECT meta FROM o INTERSECT SELECT meta FROM o",
		"SELECT id, note FROM o",
		"SELECT count(*) FROM o GROUP BY note::text",
	}
	ctx := context.Background()
	conn, s := pgAndSchema(t, ctx, ddl)
	refused := 0
	for _, q := range queries {
		_, pgErr := conn.Exec(ctx, q)
		_, err := planner.Plan(ctx, s, q, planner.Options{})
		if (pgErr == nil) != (err == nil) {
			t.Errorf("%s: PostgreSQL error %v, planner error %v", q, pgErr, err)
		}
		if pgErr != nil {
			refused++
		}
	}
	if refused != 3 {
		t.Errorf("PostgreSQL refused %d queries, want 3: the test's cases no longer show the difference", refused)
	}
}
