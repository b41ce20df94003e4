package tag

import (
	"testing"

	"github.com/pgequiv/pgequiv/internal/sqltext"
)

// TestUnreadEffect: the lexer-only reading of an unread statement finds
// writes and code wherever the words stand outside literals, comments
// and quoted names, and leaves plain queries alone.
func TestUnreadEffect(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		strs sqltext.Strings
		want string
	}{
		{sql: "SELECT count(*) FROM dogs WHERE name IN ('insert', 'update') /*pgequiv_ref='x'*/", want: ""},
		{sql: "  (SELECT 1) UNION ALL VALUES (2); TABLE dogs;", want: ""},
		{sql: `SELECT "update", $$delete$$, 1e5 FROM dogs -- drop`, want: ""},
		{sql: "WITH a AS (SELECT 1) SELECT * FROM a", want: ""},
		{sql: "UPDATE dogs SET age = 99 /*pgequiv_ref='x'*/", want: "UPDATE"},
		{sql: "/* c */ update dogs SET age = 1", want: "UPDATE"},
		{sql: "SELECT 1; DELETE FROM dogs", want: "DELETE"},
		{sql: "WITH d AS (DELETE FROM dogs RETURNING 1) SELECT 1", want: "DELETE"},
		{sql: "SELECT * INTO t FROM dogs", want: "INTO"},
		{sql: "SELECT * FROM dogs FOR UPDATE", want: "UPDATE"},
		{sql: "SELECT * FROM dogs FOR KEY SHARE", want: "SHARE"},
		{sql: "SELECT nextval('s')", want: "a call of nextval"},
		{sql: "SELECT pg_catalog.pg_advisory_xact_lock(1)", want: "a call of pg_advisory_xact_lock"},
		{sql: "EXPLAIN ANALYZE SELECT 1", want: "EXPLAIN"},
		{sql: "CALL p()", want: "CALL"},
		{sql: "SELECT 'unterminated", want: "text the proxy's lexer rejects"},
		// With standard_conforming_strings off, \' does not end the
		// string: the UPDATE is outside it.
		{sql: `SELECT 'a\'; UPDATE dogs SET age = 1; --'`, strs: sqltext.StandardStrings, want: "UPDATE"},
		{sql: `SELECT 'a\''; SELECT 1`, strs: sqltext.BackslashStrings, want: ""},
	} {
		if got := UnreadEffect(tc.sql, tc.strs); got != tc.want {
			t.Errorf("%s (strings %v): got %q, want %q", tc.sql, tc.strs, got, tc.want)
		}
	}
}
