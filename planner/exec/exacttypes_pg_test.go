package exec_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// The exact-type database: the same rows loaded into PostgreSQL (as SQL
// text) and given to the executor (as values), so that each query's
// printed result can be compared character for character.
const exactDDL = `CREATE TABLE ty (id int PRIMARY KEY, x int, b bigint, r real, d double precision,
	n numeric, p numeric(10,2), tx text, c char(3), iv interval);`

const exactRows = `INSERT INTO ty VALUES
	(1, 1, 1, 0.1, 0.1, 1.25, 1.25, 'abc', 'ab', '1 day'),
	(2, 40000, 3000000000, 1.5, -0.5, 12.35, 99.99, 'éa', 'x', '24:00:00'),
	(3, -3, -2, -0.25, 1e300, -0.05, -0.05, '', 'abc', '1 mon'),
	(4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);`

func exactDB(t *testing.T) exec.Database {
	t.Helper()
	num := func(s string) exec.Value {
		v, err := exec.Numeric(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	day := int64(86_400_000_000)
	// Real values as the column receives them: the executor rounds a
	// real column's values to single precision as it reads them.
	return exec.Database{"ty": {
		{exec.Int(1), exec.Int(1), exec.Int(1), exec.Float(0.1), exec.Float(0.1), num("1.25"), num("1.25"), exec.Text("abc"), exec.Text("ab"), exec.Interval(0, 1, 0)},
		{exec.Int(2), exec.Int(40000), exec.Int(3000000000), exec.Float(1.5), exec.Float(-0.5), num("12.35"), num("99.99"), exec.Text("éa"), exec.Text("x"), exec.Interval(0, 0, day)},
		{exec.Int(3), exec.Int(-3), exec.Int(-2), exec.Float(-0.25), exec.Float(1e300), num("-0.05"), num("-0.05"), exec.Text(""), exec.Text("abc"), exec.Interval(1, 0, 0)},
		{exec.Int(4), exec.Null, exec.Null, exec.Null, exec.Null, exec.Null, exec.Null, exec.Null, exec.Null, exec.Null},
	}}
}

// exactQueries are computed exactly: the printed result (or the error)
// must be PostgreSQL's.
var exactQueries = []string{
	// div (numfuncs.go); encode and decode of literals, which the
	// normalizer folds (fold-constant-bytea).
	"SELECT div(n, 2) FROM ty",
	"SELECT encode(decode('616263', 'hex'), 'hex')",
	// Cause 10: a real compared with a numeric literal is compared in
	// float8 (0.1 is not the stored 0.1), with a real or a quoted
	// literal in float4.
	"SELECT id FROM ty WHERE r = 0.1",
	"SELECT id FROM ty WHERE r = 0.1::real",
	"SELECT id FROM ty WHERE r = '0.1'",
	"SELECT id FROM ty WHERE r = 1.5",
	"SELECT id FROM ty WHERE r::float8 = 0.1",
	"SELECT id FROM ty WHERE d = 0.1",
	"SELECT id FROM ty WHERE d::real = 0.1::real",
	"SELECT r, r::float8, r::text, r * 2, r + r, -r, abs(r), r::numeric FROM ty",
	"SELECT count(*) FROM ty WHERE r < 0.1",
	"SELECT avg(r) FROM ty",
	"SELECT sum(r) FROM ty WHERE id <> 1",
	// Cause 9: casts inside a family.
	"SELECT x::real, x::float8, (x * 1.1)::real FROM ty WHERE id = 1",
	"SELECT d::real FROM ty WHERE id IN (1, 2)",
	"SELECT d::real FROM ty",     // 1e300 overflows real
	"SELECT x::smallint FROM ty", // 40000 is out of range
	"SELECT x::smallint FROM ty WHERE id <> 2",
	"SELECT b::int FROM ty",
	"SELECT b::int FROM ty WHERE id <> 2",
	"SELECT x::int4, x::int8, b::int8 FROM ty",
	"SELECT 40000::smallint",
	"SELECT '7'::smallint + 1",
	"SELECT tx::name, tx::\"char\", tx::varchar(2), tx::varchar FROM ty WHERE id <> 2",
	"SELECT ('ééééééééééééééééééééééééééééééééé' || 'éééééééééééééééééééééééééé')::name",
	"SELECT c::text, c::varchar FROM ty",
	"SELECT id FROM ty WHERE c::text = 'ab'",
	"SELECT id FROM ty WHERE c = 'ab'",
	"SELECT p::numeric(5,1), n::numeric(5,1), n::numeric(3,2) FROM ty WHERE id <> 2",
	"SELECT n::numeric(3,2) FROM ty",
	"SELECT -(0::float8), (-0.0)::float8, 1.0, 1.00",
	// Cause 12: intervals compare normalised (a month is 30 days, a day
	// 24 hours) and add fieldwise; timestamptz literals with an offset
	// are instants.
	"SELECT id FROM ty WHERE iv = interval '1 day'",
	"SELECT id FROM ty WHERE iv = interval '30 days'",
	"SELECT id FROM ty WHERE iv < interval '2 days'",
	"SELECT iv, date '2024-01-31' + iv FROM ty",
	// anynonarray || text: a quoted literal beside an integer is text,
	// each operand prints in its output form.
	"SELECT x || 'a', 'a' || x, x || tx, c || x, c || 'y', r || '', d || '', n || '|', p || '', iv || '', b || 'z' FROM ty",
	"SELECT 1 || 'a', '1' || 2, NULL || 1, 1 || NULL, x || '{1}' FROM ty",
	"SELECT count(DISTINCT iv) FROM ty",
	"SELECT max(iv) FROM ty",
	"SELECT iv FROM ty UNION ALL SELECT iv FROM ty WHERE id = 2",
	"SELECT iv FROM ty WHERE id = 1 UNION SELECT iv FROM ty WHERE id = 3",
	"SELECT id FROM ty WHERE '2024-01-01 10:00+03'::timestamptz = '2024-01-01 07:00+00'::timestamptz",
	"SELECT id FROM ty WHERE '2024-01-01 10:00+03'::timestamptz = '2024-01-01 10:00+00'::timestamptz",
	"SELECT id FROM ty WHERE '2024-01-01 10:00+03'::timestamptz < '2024-01-01 08:00:00-01:30'::timestamptz",
	"SELECT '2024-01-01 10:00:30.5+05:30'::timestamptz",
	// Integer bit operators, on every width and with NULL.
	"SELECT x & 6, x | 6, x # 6, ~x, b & x, b | 3000000000, b # -1, ~b, x & NULL FROM ty",
	"SELECT 5 & 3, 5 | 3, 5 # 3, ~500, ~(-1), ~0::smallint, 32767::smallint | 1::smallint",
	"SELECT id FROM ty WHERE (x & 1) = 1 OR (b # 1) < 0",
	// jsonb input, output and operators (jsonb.go).
	"SELECT '{\"b\": 1, \"a\": 2}'::jsonb",
	"SELECT '{\"a\": 1}'::jsonb -> 'a', '{\"a\": 1}'::jsonb ->> 'a'",
	"SELECT id FROM ty WHERE '{\"a\": 1}'::jsonb @> '{}'",
	// Regular expressions and SIMILAR TO (regex.go).
	"SELECT id FROM ty WHERE tx ~ 'a'",
	"SELECT id, tx FROM ty WHERE tx SIMILAR TO 'a%' OR tx !~ 'b'",
}

// exactCannot are refused: their result depends on what the executor
// does not model (the session's TimeZone, json's text,
// bpchar casts, which of two equal intervals a group keeps, a real sum
// whose rounding depends on the order of rows).
var exactCannot = []string{
	"SELECT '2024-01-01 10:00'::timestamptz",
	"SELECT '2024-01-01 10:00+03'::timestamptz::timestamp",
	"SELECT '2024-01-01 10:00+03'::timestamptz::text",
	"SELECT tx::json FROM ty",
	"SELECT tx::bpchar FROM ty",
	"SELECT tx::char(2) FROM ty",
	"SELECT DISTINCT iv FROM ty",
	"SELECT iv, count(*) FROM ty GROUP BY iv",
	"SELECT min(iv) FROM ty",
	"SELECT iv FROM ty WHERE id = 1 UNION SELECT iv FROM ty WHERE id = 2",
	"SELECT sum(r) FROM ty",
	// Operators and functions planned but not modelled: a regular
	// expression with case folding on non-ASCII text (regex.go),
	// arrays, time zones, and functions whose last bits or edge cases
	// are not followed.
	"SELECT tx !~* 'A' FROM ty",
	"SELECT CAST(ARRAY[1] AS bigint[]) @> CAST(ARRAY[] AS bigint[])",
	"SELECT timezone('UTC', '2024-01-01 10:00'::timestamp)",
	"SELECT sin(d) FROM ty",
	"SELECT lpad(tx, 5) FROM ty",
	"SELECT trunc(d) FROM ty",
	"SELECT encode(decode(tx, 'escape'), 'hex') FROM ty",
}

// TestExactTypesPostgres (issue 18, causes 9, 10 and 12) runs each query
// on PostgreSQL and on the executor over the same rows: a query of
// exactQueries must print PostgreSQL's text exactly (or fail where
// PostgreSQL fails), a query of exactCannot must be refused as "cannot
// execute" and never answered.
func TestExactTypesPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	conn := pgConn(t, ctx, exactDDL+exactRows+"SET TimeZone = 'UTC';")
	schema, err := catalog.LoadDDL(exactDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	db := exactDB(t)
	for _, q := range append(append([]string(nil), exactQueries...), exactCannot...) {
		p, err := planner.Plan(ctx, schema, q, planner.Options{})
		if err != nil {
			t.Errorf("%s: not planned: %v", q, err)
			continue
		}
		got, gerr := exec.Execute(ctx, p, db)
		want, werr := pgRows(ctx, conn, q)
		cannot := errors.Is(gerr, exec.ErrCannotExecute)
		if isIn(q, exactCannot) {
			if !cannot {
				t.Errorf("%s: executed (%v, %v), want cannot execute; PostgreSQL: %v %v", q, rowsText(got), gerr, textRows(want), werr)
			}
			continue
		}
		switch {
		case cannot:
			t.Errorf("%s: %v; PostgreSQL: %v %v", q, gerr, textRows(want), werr)
		case (gerr != nil) != (werr != nil):
			t.Errorf("%s: executor error %v, PostgreSQL error %v (%v / %v)", q, gerr, werr, rowsText(got), textRows(want))
		case gerr == nil && !sameBag(rowsText(got), textRows(want)):
			t.Errorf("%s:\n executor   %q\n PostgreSQL %q", q, rowsText(got), textRows(want))
		}
	}
}

func isIn(s string, list []string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// rowsText is a result's rows as PostgreSQL prints them, one string a
// row.
func rowsText(r *exec.Result) []string {
	if r == nil {
		return nil
	}
	out := make([]string, len(r.Rows))
	for i, row := range r.Rows {
		parts := make([]string, len(row))
		for j, v := range row {
			parts[j] = v.String()
		}
		out[i] = strings.Join(parts, "|")
	}
	return out
}

func textRows(rows [][]*string) []string {
	out := make([]string, len(rows))
	for i, row := range rows {
		parts := make([]string, len(row))
		for j, v := range row {
			parts[j] = "NULL"
			if v != nil {
				parts[j] = *v
			}
		}
		out[i] = strings.Join(parts, "|")
	}
	return out
}
