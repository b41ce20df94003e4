package build

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

const arrayAggDDL = `CREATE TABLE a (k BIGINT NOT NULL PRIMARY KEY, i INT, f DOUBLE PRECISION, s TEXT, j JSONB, u UUID);`

// TestArrayAggSubscriptPostgres plans (array_agg(x))[i] as a subscript
// of x's family and checks on PostgreSQL that the value is of that type,
// and NULL past the end and over no rows, as pgarray.go says; forms it
// does not cover stay refused (want "").
func TestArrayAggSubscriptPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	s, err := catalog.LoadDDL(arrayAggDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pg := pgtest.New(t, pgtest.Options{})
	conn, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, arrayAggDDL+`INSERT INTO a VALUES (1, 7, 1.5, 'x', '{"a": 1}', '00000000-0000-0000-0000-000000000001');`); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		sql     string
		planned bool
		null    bool // PostgreSQL's value is NULL
	}{
		{"SELECT (ARRAY_AGG(i))[1] FROM a", true, false},
		{"SELECT (ARRAY_AGG(f))[1] FROM a", true, false},
		{"SELECT (ARRAY_AGG(s))[1] FROM a", true, false},
		{"SELECT (ARRAY_AGG(j))[1] FROM a", true, false},
		{"SELECT (ARRAY_AGG(u))[1] FROM a", true, false},
		{"SELECT (ARRAY_AGG(k + 1))[1] FROM a GROUP BY i", true, false},
		{"SELECT (ARRAY_AGG(t.j))[1] FROM (SELECT k, (ARRAY_AGG(j))[1] AS j FROM a GROUP BY k) t", true, false},
		{"SELECT (ARRAY_AGG(i))[2] FROM a", true, true},
		{"SELECT (ARRAY_AGG(i))[1] FROM a WHERE k < 0", true, true},
		{"SELECT (ARRAY_AGG(i))[1:1] FROM a", false, false},
		{"SELECT (ARRAY_AGG(i))['1'::text] FROM a", false, false},
	}
	for _, tc := range tests {
		p, err := Build(s, tc.sql)
		if !tc.planned {
			if err == nil {
				t.Errorf("%s: planned, want refused:\n%s", tc.sql, p.Explain())
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		var typ string
		var isNull bool
		if err := conn.QueryRow(ctx, "SELECT pg_typeof(v)::text, v IS NULL FROM ("+tc.sql+") q(v)").Scan(&typ, &isNull); err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		got := p.Meta.Col(p.Root.OutCols()[0]).Type
		if want := catalog.TypeFromName(CanonicalType(typ, false)); got != want {
			t.Errorf("%s: planned type %v, PostgreSQL's %s (%v)", tc.sql, got, typ, want)
		}
		if isNull != tc.null {
			t.Errorf("%s: PostgreSQL's value NULL = %v, want %v", tc.sql, isNull, tc.null)
		}
	}
}
