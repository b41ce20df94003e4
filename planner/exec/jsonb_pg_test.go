package exec_test

import (
	"context"
	"errors"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
)

// jsonbCases are jsonb input, output and operators over "one" with
// PostgreSQL 15's results (TestJSONBText checks each there): key order,
// duplicate keys, numbers' scale, ->, ->> with keys and indexes, @> and
// <@ with nested objects and arrays, ?, NULLs, and what is refused.
var jsonbCases = []struct{ expr, want string }{
	{`'{"b": 1, "a": 2}'::jsonb`, `{"a": 2, "b": 1}`},
	{`'{"aa":1,"b":2}'::jsonb`, `{"b": 2, "aa": 1}`},
	{`'{"a":1,"a":2}'::jsonb`, `{"a": 2}`},
	{`'[1, 1.50, -0, "x\ty", null, true]'::jsonb`, `[1, 1.50, 0, "x\ty", null, true]`},
	{`' { "a" : [ ] , "b":{} } '::jsonb`, `{"a": [], "b": {}}`},
	{`'"a\"b\\c\/d"'::jsonb`, `"a\"b\\c/d"`},
	{`'{"a": {"b": [1, 2]}}'::jsonb -> 'a'`, `{"b": [1, 2]}`},
	{`'{"a": {"b": [1, 2]}}'::jsonb -> 'a' -> 'b' ->> 1`, "2"},
	{`'[1,2,3]'::jsonb -> -1`, "3"},
	{`'[1,2,3]'::jsonb -> 5`, "NULL"},
	{`'[1,2,3]'::jsonb -> -4`, "NULL"},
	{`'{"a": null}'::jsonb ->> 'a'`, "NULL"},
	{`'{"a": null}'::jsonb -> 'a'`, "null"},
	{`'{"a": "x\"y"}'::jsonb ->> 'a'`, `x"y`},
	{`'{"a": true}'::jsonb ->> 'a'`, "true"},
	{`'{"a": 1.50}'::jsonb ->> 'a'`, "1.50"},
	{`'{"a": [1, {"b": 2}]}'::jsonb ->> 'a'`, `[1, {"b": 2}]`},
	{`'{"a": 1}'::jsonb ->> 'b'`, "NULL"},
	{`'[1]'::jsonb ->> 'a'`, "NULL"},
	{`'{"a": 1}'::jsonb -> 0`, "NULL"},
	{`'"a"'::jsonb -> 'a'`, "NULL"},
	{`NULL::jsonb -> 'a'`, "NULL"},
	{`'{"a": 1}'::jsonb -> NULL::text`, "NULL"},
	{`'{"a": 1, "b": 2}'::jsonb @> '{"a": 1}'`, "true"},
	{`'{"a": 1, "b": 2}'::jsonb @> '{"a": 1.0}'`, "true"},
	{`'{"a": 1, "b": 2}'::jsonb @> '{"a": "1"}'`, "false"},
	{`'{"a": 1}'::jsonb @> '{"a": 1, "c": 3}'`, "false"},
	{`'[1, 2, [3]]'::jsonb @> '[3]'`, "false"},
	{`'[1, 2, [3]]'::jsonb @> '[[3]]'`, "true"},
	{`'[1, 2]'::jsonb @> '1'`, "true"},
	{`'[1, 2]'::jsonb @> '[2, 2, 1]'`, "true"},
	{`'{"a": [1, 2]}'::jsonb @> '{"a": [2]}'`, "true"},
	{`'{"a": [1, 2]}'::jsonb @> '{"a": 2}'`, "false"},
	{`'{"a": {"b": 1, "c": 2}}'::jsonb @> '{"a": {"b": 1}}'`, "true"},
	{`'{"a": {"b": 1}}'::jsonb @> '{"a": {}}'`, "true"},
	{`'{}'::jsonb @> '{}'`, "true"},
	{`'{"a": 1}'::jsonb @> '[]'`, "false"},
	{`'[]'::jsonb @> '{}'`, "false"},
	{`'"a"'::jsonb @> '"a"'`, "true"},
	{`'1'::jsonb @> '[1]'`, "false"},
	{`'{"a":1}'::jsonb <@ '{"a":1,"b":2}'`, "true"},
	{`'{"a":1,"b":2}'::jsonb <@ '{"a":1}'`, "false"},
	{`'{"a": 1}'::jsonb ? 'a'`, "true"},
	{`'{"a": 1}'::jsonb ? 'b'`, "false"},
	{`'["a", 1]'::jsonb ? 'a'`, "true"},
	{`'[1]'::jsonb ? '1'`, "false"},
	{`'"a"'::jsonb ? 'a'`, "true"},
	{`'1'::jsonb ? '1'`, "false"},
	{`'"go"'::jsonb -> 0`, `"go"`},
	{`'"go"'::jsonb -> -1`, `"go"`},
	{`'"go"'::jsonb -> 1`, "NULL"},
	{`'1'::jsonb ->> 0`, "1"},
	{`'null'::jsonb -> 0`, "null"},
	{`'{"x": {"a": 1}}'::jsonb ? 'a'`, "false"},
	{`'{"b": 1, "a": 2}'::jsonb::text`, `{"a": 2, "b": 1}`},
	{`('{"b": 1}'::jsonb -> 'b')::text`, "1"},
	// Refused: \u escapes, exponents, json (not jsonb), = between jsonb.
	{`'{"a": "\u0041"}'::jsonb`, cannot_},
	{`'1e2'::jsonb`, cannot_},
	{`'{"a":1}'::json -> 'a'`, cannot_},
	{`'{"a":1}'::jsonb = '{"a":1}'::jsonb`, cannot_},
	{`coalesce(NULL::jsonb, '{"b":1,  "a":2}')`, cannot_}, // a literal the planner leaves text
}

// TestJSONB evaluates jsonbCases with the executor.
func TestJSONB(t *testing.T) {
	ctx := context.Background()
	s, err := catalog.LoadDDL(datetimeOneDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	db := exec.Database{"one": {{exec.Int(1), exec.Null, exec.Null, exec.Null}}}
	for _, tc := range jsonbCases {
		if got := evalOne(ctx, t, s, db, tc.expr); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
}

// TestJSONBText checks jsonbCases on PostgreSQL.
func TestJSONBText(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	conn := pgConn(t, ctx, datetimeOneDDL+" INSERT INTO one VALUES (1, NULL, NULL, NULL);")
	for _, tc := range jsonbCases {
		if tc.want == cannot_ {
			continue
		}
		if got := pgOne(ctx, t, conn, tc.expr); got != tc.want {
			t.Errorf("PostgreSQL: %s = %s, the case says %s", tc.expr, got, tc.want)
		}
	}
}

const jsonbDDL = `CREATE TABLE tj (id integer PRIMARY KEY, j jsonb, k jsonb NOT NULL);`

// jsonbRows hold documents with the same keys in other orders, numbers
// of other scales, nesting, arrays and JSON nulls.
var jsonbRows = [][3]string{
	{"1", `{"a": 1, "b": "x"}`, `{"tags": ["go", "sql"], "n": 1}`},
	{"2", `{"b": "x", "a": 1}`, `{"tags": ["sql"], "n": 2.50}`},
	{"3", `{"a": 2, "c": null}`, `[1, "go", {"x": 1}]`},
	{"4", "", `{"tags": [], "n": null}`},
	{"5", `{"a": {"b": [1, 2]}}`, `"go"`},
	{"6", `{"a": 1, "b": "x"}`, `{"n": 2.5}`},
}

// jsonbQueries read, filter and group jsonb columns.
var jsonbQueries = []string{
	"SELECT id, j, k FROM tj",
	"SELECT id, j ->> 'a', j -> 'b', k -> 'tags' ->> 0, k ->> 'n', k -> -1 FROM tj",
	"SELECT id FROM tj WHERE j ->> 'b' = 'x'",
	"SELECT id FROM tj WHERE (k ->> 'n')::numeric > 2",
	"SELECT id FROM tj WHERE j @> '{\"a\": 1}' OR k @> '{\"tags\": [\"go\"]}'",
	"SELECT id FROM tj WHERE k <@ '{\"tags\": [\"sql\", \"go\"], \"n\": 1, \"m\": 0}'",
	"SELECT id FROM tj WHERE j ? 'c' OR k ? 'go'",
	"SELECT DISTINCT j FROM tj",
	"SELECT j, count(*) FROM tj GROUP BY j",
	"SELECT count(DISTINCT k -> 'n') FROM tj",
	"SELECT j ->> 'a' AS a, count(*) FROM tj GROUP BY j ->> 'a'",
	"SELECT j::text FROM tj ORDER BY id",
}

// TestDifferentialJSONB runs jsonbQueries on jsonbRows with the
// executor and PostgreSQL; DISTINCT over documents spelled apart
// (2.50 and 2.5) must be refused, not answered.
func TestDifferentialJSONB(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	conn := pgConn(t, ctx, jsonbDDL)
	schema, err := catalog.LoadDDL(jsonbDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	db := exec.Database{}
	for _, r := range jsonbRows {
		row := []exec.Value{exec.Int(0), exec.Null, exec.Null}
		row[0], _ = exec.Parse(catalog.Int, r[0])
		sqlJ := "NULL"
		if r[1] != "" {
			if row[1], err = exec.ParseJSONB(r[1]); err != nil {
				t.Fatal(err)
			}
			sqlJ = "'" + r[1] + "'"
		}
		if row[2], err = exec.ParseJSONB(r[2]); err != nil {
			t.Fatal(err)
		}
		db["tj"] = append(db["tj"], row)
		if _, err := conn.Exec(ctx, "INSERT INTO tj VALUES ("+r[0]+", "+sqlJ+", '"+r[2]+"')"); err != nil {
			t.Fatal(err)
		}
	}
	// Every query executes but those grouping documents spelled apart.
	spelledApart := []string{"SELECT DISTINCT k -> 'n' FROM tj", "SELECT k -> 'n' FROM tj UNION SELECT j FROM tj"}
	checkExecutes(t, ctx, schema, db, jsonbQueries, spelledApart, nil)
	for _, q := range jsonbQueries {
		p, err := planner.Plan(ctx, schema, q, planner.Options{})
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		got, gerr := exec.Execute(ctx, p, db)
		if errors.Is(gerr, exec.ErrCannotExecute) {
			continue // reported by checkExecutes
		}
		want, werr := pgRows(ctx, conn, q)
		if gerr != nil || werr != nil {
			t.Errorf("%s: executor %v, PostgreSQL %v", q, gerr, werr)
			continue
		}
		if diff := compare(p, got, want); diff != "" {
			t.Errorf("%s: %s\n executor %v\n PostgreSQL %v", q, diff, rowsText(got), textRows(want))
		}
	}
}
