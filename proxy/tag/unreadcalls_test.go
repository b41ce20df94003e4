package tag

import (
	"slices"
	"testing"

	"github.com/pgequiv/pgequiv/internal/sqltext"
)

// TestUnreadCalls: the lexer's reading of calls, for statements answered
// unread, finds what pg_query's reading finds (NameCall entries) through
// comments, quoting and schema names, and takes no reserved keyword, alias
// column list or window clause for a call; a name it cannot tell from a
// call counts as one.
func TestUnreadCalls(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{sql: "SELECT count(*), upper(name), my_fn(1) FROM t", want: []string{"c:count", "c:upper", "c:my_fn"}},
		{sql: "SELECT My_Fn /* gap */ (1), \"My_Fn\"(2), public.f(3), pg_catalog.lower('A'), db.s.g(4)",
			want: []string{"c:my_fn", "c:My_Fn", "c:public.f", "c:lower", "c:s.g"}},
		{sql: "SELECT \"a.b\"(1), \"s\".\"f\"(2), s -- c\n . f (3)", want: []string{`c:"a.b"`, "c:s.f"}},
		// Keywords, casts with modifiers, literals, parameters.
		{sql: "SELECT CAST(a AS numeric(10, 2)), coalesce(a, 1), x IN (1, 2), EXISTS (SELECT 1) FROM t WHERE (a) > $1 AND b = 'f(x)' AND c = $$g(y)$$",
			want: nil},
		{sql: "SELECT sum(a) FILTER (WHERE a > 0) OVER (PARTITION BY b) FROM (SELECT 1) s(a, b), t AS u(c)", want: []string{"c:sum"}},
		{sql: "WITH w AS MATERIALIZED (SELECT 1) SELECT x FROM w", want: nil},
		// What cannot be told from a call counts as one.
		{sql: "SELECT x FROM t u(c)", want: []string{"c:u"}},
		{sql: "SELECT left('ab', 1), range(1)", want: []string{"c:left", "c:range"}},
		// Text the lexer rejects reads as nothing (UnreadEffect refuses it).
		{sql: "SELECT f('", want: nil},
	} {
		got := UnreadCalls(tc.sql, sqltext.StandardStrings)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.sql, got, tc.want)
		}
		// What pg_query reads is a subset of the lexer's reading.
		if stmts, err := Split(tc.sql, sqltext.StandardStrings); err == nil {
			for _, n := range stmts[0].Names {
				if n[:len(NameCall)] == NameCall && !slices.Contains(got, n) {
					t.Errorf("%s: the parser reads %s, the lexer does not", tc.sql, n)
				}
			}
		}
	}
}
