package tag

import (
	"testing"

	"github.com/pgequiv/pgequiv/internal/sqltext"
)

func TestFindCommentIn(t *testing.T) {
	const tagc = "/*pgequiv_ref='SELECT%201'*/"
	tests := []struct {
		name, sql string
		strs      sqltext.Strings
		ok, err   bool
	}{
		{name: "E string escaped quote", sql: `SELECT E'O\'Brien' ` + tagc, ok: true},
		{name: "E string hides the tag", sql: `SELECT E'O\' ` + tagc + ` '`, ok: false},
		{name: "backslash strings: escaped quote", sql: `SELECT 'O\'Brien' ` + tagc, strs: sqltext.BackslashStrings, ok: true},
		{name: "backslash strings: tag inside the string", sql: `SELECT 'O\' ` + tagc + ` '`, strs: sqltext.BackslashStrings, ok: false},
		{name: "standard strings: backslash ends nothing", sql: `SELECT 'O\' ` + tagc + ` '`, ok: false},
		{name: "standard strings: tag after a backslash", sql: `SELECT 'a\' ` + tagc, ok: true},
		{name: "dollar in identifier", sql: `SELECT a$b, c$ FROM t ` + tagc, ok: true},
		{name: "dollar quote", sql: `SELECT $q$ ` + tagc + ` $q$`, ok: false},
		{name: "dollar quote then tag", sql: `SELECT $q$ $$ $q$ ` + tagc, ok: true},
		{name: "nested comment hides the tag", sql: `SELECT 1 /* /* */ ` + tagc + ` */`, err: true},
		{name: "nested comment then tag", sql: `SELECT 1 /* /* */ */ ` + tagc, ok: true},
		{name: "line comment hides the tag", sql: "SELECT 1 -- " + tagc, ok: false},
		{name: "continued string", sql: "SELECT 'a'\n'" + tagc + "'", ok: false},
		{name: "N string with backslash strings", sql: `SELECT N'\'' ` + tagc, strs: sqltext.BackslashStrings, ok: true},
		{name: "unterminated string", sql: "SELECT '" + tagc, ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, ok, err := FindCommentIn(tc.sql, tc.strs)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if ok != tc.ok {
				t.Errorf("found = %v, want %v", ok, tc.ok)
			}
		})
	}
}
