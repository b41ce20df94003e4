package proxy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// differentialStatements is a sequence of statements run in order on one
// session; later statements use the temp tables earlier ones create.
func differentialStatements() []string {
	var s []string
	// Literals of many types: the DataRow encodings must pass unchanged.
	for _, lit := range []string{
		"1::int2", "2147483647::int4", "-9223372036854775808::int8", "3.14159::float4", "2.718281828459045::float8",
		"123456789012345678901234567890.123456789::numeric", "'NaN'::numeric", "true", "'abc'::text", "'x'::char(3)",
		"'varchar'::varchar(10)", "'\\x00ff10'::bytea", "'2024-02-29'::date", "'12:34:56.789'::time",
		"'2024-01-02 03:04:05.678901'::timestamp", "'2024-01-02 03:04:05+02'::timestamptz", "'1 year 2 mons 3 days 04:05:06'::interval",
		"'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", "'{\"a\": [1, 2, {\"b\": null}]}'::json", "'{\"a\": [1, 2, {\"b\": null}]}'::jsonb",
		"ARRAY[1, 2, NULL, 4]", "ARRAY[['a', 'b'], ['c', 'd']]", "'192.168.0.1/24'::inet", "'08:00:2b:01:02:03'::macaddr",
		"'(1,2)'::point", "'[1,10)'::int4range", "'101'::bit(3)", "'fat & rat'::tsquery", "'a fat cat'::tsvector",
		"ROW(1, 'two', 3.0)", "NULL::text", "'pg_class'::regclass", "'{}'::int[]", "'infinity'::timestamp", "'-infinity'::date",
	} {
		s = append(s, "SELECT "+lit+" AS v")
	}
	s = append(s,
		// Expressions and functions.
		"SELECT upper('mixed Case'), lower('MiXeD'), length('héllo'), octet_length('héllo')",
		"SELECT 7 / 2, 7 % 3, 7.0 / 2, 2 ^ 10, |/ 16.0, @ -5",
		"SELECT string_agg(g::text, ',' ORDER BY g DESC) FROM generate_series(1, 10) g",
		"SELECT g, sum(g) OVER (ORDER BY g), rank() OVER (ORDER BY g % 3) FROM generate_series(1, 6) g",
		"SELECT jsonb_build_object('k', 1, 'arr', jsonb_build_array(1, 'x', NULL)) -> 'arr' ->> 1",
		"SELECT to_char(date '2024-03-05', 'YYYY/MM/DD Day'), extract(dow FROM date '2024-03-05')",
		"SELECT regexp_replace('a1b22c333', '[0-9]+', '#', 'g'), split_part('a,b,c', ',', 2)",
		"SELECT coalesce(NULL, NULL, 'third'), nullif(1, 1), greatest(1, 5, 3), least('b', 'a')",
		"SELECT CASE WHEN g % 2 = 0 THEN 'even' ELSE 'odd' END FROM generate_series(1, 4) g",
		"SELECT array_agg(x ORDER BY x) FROM unnest(ARRAY[3, 1, 2]) x",
		"SELECT md5('pgequiv'), sha256('pgequiv'::bytea)",
		"SELECT format('%s-%I-%L', 'a', 'B c', 'it''s')",
		"SELECT repeat('ab', 3000)",
		"SELECT count(*), min(g), max(g), avg(g)::numeric(10,2) FROM generate_series(1, 100000) g",
		"VALUES (1, 'one'), (2, 'two'), (3, NULL)",
		"SELECT * FROM (VALUES (1), (2)) a(x) CROSS JOIN (VALUES ('p'), ('q')) b(y) ORDER BY 1, 2",
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 20) SELECT sum(n) FROM r",
		"SELECT current_setting('DateStyle'), current_setting('IntervalStyle')",
		"SHOW TimeZone",
		"SELECT 'a' = 'A', 'a' ILIKE 'A', 'abc' LIKE 'a%', 'abc' ~ '^a.c$'",

		// DDL and DML on temp tables.
		"CREATE TEMP TABLE d_items (id int PRIMARY KEY, name text NOT NULL, price numeric(10,2) CHECK (price >= 0), tags text[])",
		"INSERT INTO d_items VALUES (1, 'apple', 1.25, '{fruit}'), (2, 'bread', 2.50, '{bakery}'), (3, 'cheese', 7.99, NULL)",
		"INSERT INTO d_items VALUES (4, 'dates', 4.00, '{fruit,dried}') RETURNING id, name, price * 2 AS double",
		"UPDATE d_items SET price = price * 1.1 WHERE 'fruit' = ANY(tags) RETURNING *",
		"DELETE FROM d_items WHERE id = 3 RETURNING name",
		"INSERT INTO d_items VALUES (2, 'bagel', 1.00, NULL) ON CONFLICT (id) DO UPDATE SET name = excluded.name RETURNING *",
		"INSERT INTO d_items VALUES (5, 'eggs', 3.10, NULL) ON CONFLICT DO NOTHING",
		"SELECT * FROM d_items ORDER BY id",
		"SELECT name, price, sum(price) OVER () AS total FROM d_items ORDER BY price DESC",
		"CREATE TEMP TABLE d_orders (id serial PRIMARY KEY, item_id int REFERENCES d_items(id), qty int DEFAULT 1)",
		"INSERT INTO d_orders (item_id, qty) SELECT id, id * 2 FROM d_items",
		"SELECT i.name, sum(o.qty) FROM d_items i JOIN d_orders o ON o.item_id = i.id GROUP BY i.name HAVING sum(o.qty) > 2 ORDER BY 1",
		"SELECT i.name FROM d_items i LEFT JOIN d_orders o ON o.item_id = i.id WHERE o.id IS NULL",
		"SELECT name FROM d_items WHERE id IN (SELECT item_id FROM d_orders WHERE qty > 3) ORDER BY name",
		"SELECT EXISTS (SELECT 1 FROM d_orders WHERE qty > 100)",
		"CREATE TEMP VIEW d_view AS SELECT name, price FROM d_items WHERE price > 2",
		"SELECT * FROM d_view ORDER BY name",
		"ALTER TABLE d_items ADD COLUMN stock int DEFAULT 0",
		"UPDATE d_items SET stock = id * 10",
		"SELECT id, stock FROM d_items ORDER BY id",
		"CREATE INDEX ON d_items (name)",
		"EXPLAIN (COSTS OFF) SELECT * FROM d_items WHERE id = 1",
		"TRUNCATE d_orders",
		"SELECT count(*) FROM d_orders",
		"COMMENT ON TABLE d_items IS 'differential'",

		// Errors: each must come back with the same SQLSTATE and text.
		"SELEC 1",
		"SELECT 1 / 0",
		"SELECT no_such_column FROM d_items",
		"SELECT * FROM no_such_table",
		"INSERT INTO d_items VALUES (1, 'dup', 1, NULL)",
		"INSERT INTO d_items VALUES (9, NULL, 1, NULL)",
		"INSERT INTO d_items VALUES (9, 'neg', -1, NULL)",
		"INSERT INTO d_orders (item_id) VALUES (999)",
		"SELECT 'abc'::int",
		"SELECT 2147483647::int4 + 1",
		"SELECT (SELECT g FROM generate_series(1, 2) g)",
		"SELECT 1 + 'x'",
		"DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = 'P0123', MESSAGE = 'custom failure', HINT = 'a hint'; END $$",
		"SELECT repeat('x', -1) || chr(0)",

		// Transactions and savepoints in sequence.
		"BEGIN",
		"INSERT INTO d_items VALUES (10, 'tx', 1, NULL)",
		"SAVEPOINT s1",
		"INSERT INTO d_items VALUES (10, 'tx again', 1, NULL)",
		"SELECT 'refused in failed transaction'",
		"ROLLBACK TO SAVEPOINT s1",
		"SELECT name FROM d_items WHERE id = 10",
		"RELEASE SAVEPOINT s1",
		"COMMIT",
		"SELECT count(*) FROM d_items",
		"BEGIN ISOLATION LEVEL SERIALIZABLE",
		"SELECT current_setting('transaction_isolation')",
		"ROLLBACK",
		"SET extra_float_digits = 0",
		"SELECT 1.0 / 3.0::float8",
		"RESET extra_float_digits",
		"DROP TABLE d_orders",
	)
	return s
}

// outcome is everything observable about one statement's result.
type outcome struct {
	err    string
	fields string
	rows   string
	tag    string
}

func pgErrString(err error) string {
	if err == nil {
		return ""
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return fmt.Sprintf("%s %s: %s (detail %q hint %q pos %d)", pgErr.Severity, pgErr.Code, pgErr.Message, pgErr.Detail, pgErr.Hint, pgErr.Position)
	}
	return "non-server error: " + err.Error()
}

func resultOutcome(r *pgconn.Result) outcome {
	var o outcome
	o.err = pgErrString(r.Err)
	for _, f := range r.FieldDescriptions {
		o.fields += fmt.Sprintf("%s:%d:%d:%d;", f.Name, f.DataTypeOID, f.TypeModifier, f.Format)
	}
	var b strings.Builder
	for _, row := range r.Rows {
		for _, v := range row {
			if v == nil {
				b.WriteString("NULL|")
			} else {
				fmt.Fprintf(&b, "%q|", v)
			}
		}
		b.WriteByte('\n')
	}
	o.rows = b.String()
	o.tag = r.CommandTag.String()
	return o
}

// runDifferential runs the statements in one mode on a fresh connection.
func runDifferential(t *testing.T, ctx context.Context, connStr, mode string, stmts []string) []outcome {
	t.Helper()
	conn, err := pgconn.Connect(ctx, connStr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	out := make([]outcome, 0, len(stmts))
	for _, sql := range stmts {
		switch mode {
		case "simple":
			results, err := conn.Exec(ctx, sql).ReadAll()
			o := outcome{err: pgErrString(err)}
			for _, r := range results {
				ro := resultOutcome(r)
				o.fields += ro.fields
				o.rows += ro.rows
				o.tag += ro.tag + ";"
			}
			out = append(out, o)
		case "extended-text", "extended-binary":
			var formats []int16
			if mode == "extended-binary" {
				formats = []int16{1}
			}
			r := conn.ExecParams(ctx, sql, nil, nil, nil, formats).Read()
			out = append(out, resultOutcome(r))
		}
	}
	return out
}

// TestDifferential runs 100+ statements directly and through the proxy in
// the simple protocol and the extended protocol (text and binary results)
// and requires identical outcomes, statement by statement.
func TestDifferential(t *testing.T) {
	stmts := differentialStatements()
	if len(stmts) < 100 {
		t.Fatalf("only %d statements", len(stmts))
	}
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 120*time.Second)
	for _, mode := range []string{"simple", "extended-text", "extended-binary"} {
		t.Run(mode, func(t *testing.T) {
			direct := runDifferential(t, ctx, pg.ConnString(pgtest.SuperUser, ""), mode, stmts)
			proxied := runDifferential(t, ctx, p.connString(pgtest.SuperUser, ""), mode, stmts)
			errorsSeen, rowsSeen := 0, 0
			for i := range stmts {
				if direct[i] != proxied[i] {
					t.Errorf("statement %d %q differs:\n direct: %+v\n  proxy: %+v", i, stmts[i], direct[i], proxied[i])
				}
				if direct[i].err != "" {
					errorsSeen++
				}
				if direct[i].rows != "" {
					rowsSeen++
				}
			}
			// The suite must exercise both paths, not degrade into errors.
			if errorsSeen < 14 || rowsSeen < 60 {
				t.Errorf("direct run had %d errors and %d statements with rows; the script is broken", errorsSeen, rowsSeen)
			}
		})
	}
}
