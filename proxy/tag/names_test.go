package tag

import (
	"slices"
	"testing"

	"github.com/pgequiv/pgequiv/internal/sqltext"
)

// TestCalledNames: functions (also in FROM and by attribute notation),
// operators and relations, lowercased and once; genuine calls and
// operators also as the server resolves them (NameCall, NameOpCall), and
// never a column reference as a call.
func TestCalledNames(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{sql: "SELECT Public.F(a), d.g, a ## 2, F(b) FROM t d JOIN s.V ON true, lo_from_bytea(0, 'x')",
			want: []string{"f:f", "f:g", "a:g", "o:##", "r:t", "r:v", "f:lo_from_bytea",
				"c:public.f", "p:##", "c:f", "c:lo_from_bytea", "t:t", "t:s.v"}},
		// pg_catalog is the built-ins' schema; a quoted name keeps its case,
		// and a dot inside one is not a schema.
		{sql: `SELECT pg_catalog.upper(a), "Upper"(a), "a.b"(1), db.s.f(1) FROM t`,
			want: []string{"f:upper", "c:upper", "c:Upper", "f:a.b", `c:"a.b"`, "f:f", "c:s.f", "r:t", "t:t"}},
		// Column references are no calls.
		{sql: "SELECT t.a, t.b + 1 FROM t WHERE t.c = 2",
			want: []string{"f:a", "a:a", "f:b", "a:b", "o:+", "p:+", "o:=", "p:=", "f:c", "a:c", "r:t", "t:t"}},
		// Syntax that runs a built-in under another name.
		{sql: "SELECT extract(year FROM d), substring(a FROM 2), a BETWEEN 1 AND 2, a IN (SELECT b FROM u), a < ALL (SELECT b FROM u), a OPERATOR(s.###) 1 FROM t",
			want: []string{"f:extract", "c:extract", "f:substring", "c:substring", "o:between", "p:>=", "p:<=",
				"p:=", "p:<", "o:###", "p:s.###", "r:u", "r:t", "t:u", "t:t"}},
		// A CTE is no relation where it is in scope: not in a
		// non-recursive CTE's own query, nor outside its WITH; a
		// qualified name is never a CTE.
		{sql: "WITH a AS (SELECT * FROM a), b AS (SELECT * FROM a) SELECT * FROM b, public.b, (WITH c AS (SELECT 1) SELECT * FROM c) x, c",
			want: []string{"r:a", "r:b", "r:c", "t:a", "t:public.b", "t:c"}},
		{sql: "WITH RECURSIVE r AS (SELECT 1 UNION ALL SELECT * FROM r) SELECT * FROM r UNION SELECT * FROM (SELECT * FROM r) s",
			want: []string{"r:r"}},
	} {
		stmts, err := Split(tc.sql, sqltext.StandardStrings)
		if err != nil {
			t.Fatal(err)
		}
		got := stmts[0].Names
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.sql, got, want)
		}
	}
}
