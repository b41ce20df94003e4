package norm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// foldCases are constant calls the executor-backed fold rules
// (fold-constant-regex, -jsonb, -datetime, -integer-ops, -bytea) fold to
// a literal.
var foldCases = []string{
	// regex and SIMILAR TO
	`'monday' SIMILAR TO '_onday'`, `'monday' NOT SIMILAR TO '_onday'`, `'x' SIMILAR TO 'x|y'`,
	`'a%' SIMILAR TO 'a\%'`, `'abc' SIMILAR TO '(a|b)%'`, `'xabc' SIMILAR TO 'abc'`,
	`'tuEsday' ~ 't[uU][eE]sday'`, `'wednesday' !~* 'W.*y'`, `'abc' ~ '^a.c$'`, `'ABC' ~* 'b'`,
	`'a.c' ~ 'a\.c'`, `'foo123' ~ '[[:digit:]]+'`, `'aaa' ~ '^a{2,3}$'`, `'a' ~ 'a{2}'`,
	`'word' ~ '\w+'`, `'a b' ~ '\s'`, `'a b' ~ 'a\b'`, `'a
b' ~ 'a.b'`,
	// jsonb
	`'{"a": 1}'::jsonb -> 'a'`, `'{"a": {"b": [1, 2.50]}}'::jsonb -> 'a' -> 'b' -> 1`,
	`'{"a": "x\"y"}'::jsonb ->> 'a'`, `'[1, "a", null]'::jsonb -> 2`, `'[1, "a", null]'::jsonb ->> 1`,
	`'{"a": 1, "b": [1, 2]}'::jsonb @> '{"b": [2]}'::jsonb`, `'[1, [2]]'::jsonb @> '[2]'::jsonb`,
	`'[1, 2]'::jsonb <@ '[1, 2, 3]'::jsonb`, `'"abc"'::jsonb ? 'abc'`, `'{"b":1,"a":[1,2]}'::jsonb`,
	`'[123]'::jsonb - 0`, `'[1, 2, 3]'::jsonb - -1`, `'[1, 2]'::jsonb - 7`,
	// dates, timestamps and intervals
	`timestamp '2000-05-05 10:00:00' - timestamp '2000-05-06 10:00:00'`,
	`timestamp '2020-01-01 10:00' - timestamp '2019-12-31 23:59:59.5'`,
	`-interval '-1 days'`, `-interval '1 day -02:00:00'`, `interval '36 hours'`,
	`interval '1 year 2 mons' + interval '3 days 04:05:06'`, `interval '1 day' - interval '2 days 01:00:00'`,
	`date '2018-07-01' + interval '7 days 00:00:01'`, `date '2020-02-29' + interval '1 year'`,
	`date '2020-01-31' + interval '1 month 1 day'`, `timestamp '2020-03-31 12:00' - interval '1 month'`,
	`date '2021-03-01' - date '2020-03-01'`, `date '2020-02-28' + 1`, `date '2020-03-01' - 1`,
	`date('1994-09-01 +08')`, `date('Jan 5, 2020')`, `date('1994-09-01 +08') + interval '3 mons'`,
	// integers and div
	`~500`, `~(-2147483648)`, `~0`, `~(-2147483647)`, `5 & 3`, `5 | 3`, `5 # 3`, `-8 & 7`,
	`div(1.333, 1.0)`, `div(7.5, -2)`, `div(0.0, 5)`, `div(-1, 3)`, `div(10, 0.3)`,
	// bytea
	`decode('616263', 'hex')`, `decode('', 'hex')`, `decode('AP8=', 'base64')`, `'abc'::bytea`,
	`encode('\x616263'::bytea, 'hex')`, `encode(''::bytea, 'hex')`, `encode('\x00ff'::bytea, 'base64')`,
}

// TestFoldedLiteralsOnPostgres: each of foldCases normalizes to a
// literal, and PostgreSQL gives the literal the call's type and its
// output text (pg_typeof and ::text of each), so the fold changes
// neither the value nor the column's type.
func TestFoldedLiteralsOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	s := testSchema(t)
	conn := pgtest.New(t, pgtest.Options{}).Connect(t)
	typed := func(expr string) string {
		rows, err := pgtest.Rows(ctx, conn, "SELECT pg_typeof("+expr+")::text || ' ' || ("+expr+")::text", false)
		if err != nil || len(rows) != 1 {
			t.Fatalf("PostgreSQL: %s: %v %v", expr, rows, err)
		}
		return rows[0]
	}
	for _, expr := range foldCases {
		p := normalized(t, s, "SELECT "+expr)
		if p.Root.Op != plan.OpProject || len(p.Root.Proj) != 1 {
			t.Fatalf("%s: plan %s", expr, p.Canonical())
		}
		lit, ok := literalSQL(p.Root.Proj[0].Expr)
		if !ok {
			t.Errorf("%s: not folded to a literal:\n%s", expr, p.Canonical())
			continue
		}
		if want, got := typed(expr), typed(lit); got != want {
			t.Errorf("%s is %s on PostgreSQL, its fold %s is %s", expr, want, lit, got)
		}
	}
}

// literalSQL writes a literal of the plan as SQL of its exact type; ok
// is false for anything else.
func literalSQL(e *plan.Expr) (string, bool) {
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	switch {
	case e.Kind == plan.Const && !e.Null:
		switch e.Typ {
		case catalog.Int:
			return "(" + e.Value + ")", true
		case catalog.Numeric:
			return quote(e.Value) + "::numeric", true
		case catalog.Text:
			return quote(e.Value) + "::text", true
		case catalog.Bool:
			return e.Value, true
		case catalog.Date:
			return quote(e.Value) + "::date", true
		case catalog.Timestamp:
			return quote(e.Value) + "::timestamp", true
		}
	case e.Kind == plan.Cast && len(e.Args) == 1 && e.Args[0].Kind == plan.Const && !e.Args[0].Null && e.Args[0].Typ == catalog.Text:
		switch {
		case e.Typ == catalog.JSON && e.Value == "jsonb":
			return quote(e.Args[0].Value) + "::jsonb", true
		case e.Typ == catalog.Interval && e.Value == "":
			return quote(e.Args[0].Value) + "::interval", true
		case e.Typ == catalog.Bytes && e.Value == "":
			return quote(e.Args[0].Value) + "::bytea", true
		}
	}
	return "", false
}
