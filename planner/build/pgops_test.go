package build

import (
	"errors"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

const pgOpsDDL = `CREATE TABLE t (k bigint PRIMARY KEY, i int, s smallint, f double precision, n numeric,
	tx text, j jsonb, js json, ia bigint[], ta text[], ts timestamp, tz timestamptz, by bytea);`

// TestPostgresOperatorsAndFunctions plans the PostgreSQL operators and
// functions of pgops.go, pgfuncs.go and pgarray.go: each accepted form's
// expression as the plan prints it (want), or the refusal of a form
// PostgreSQL rejects or the planner does not type (want "error").
func TestPostgresOperatorsAndFunctions(t *testing.T) {
	s, err := catalog.LoadDDL(pgOpsDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ expr, want string }{
		// Integer bit operators.
		{"k & i", "(t.k & t.i)"},
		{"i | 3", "(t.i | 3)"},
		{"s # k", "(t.s # t.k)"},
		{"~i", "~t.i"},
		{"~500", "~500"},
		{"i & NULL", "(t.i & null)"},
		{"f & 1", "error"},
		{"tx | 'a'", "error"},
		{"B'01' # B'11'", "error"}, // bit strings are not modelled
		{"~f", "error"},
		// Regular expressions and SIMILAR TO: !~ is NOT ~.
		{"tx ~ 'a.*'", "(t.tx ~ 'a.*')"},
		{"tx !~ 'a.*'", "not (t.tx ~ 'a.*')"},
		{"tx ~* 'A'", "(t.tx ~* 'A')"},
		{"tx !~* 'A'", "not (t.tx ~* 'A')"},
		{"i ~ 'a'", "error"},
		{"tx SIMILAR TO 'a%'", "(t.tx similar to 'a%')"},
		{"tx NOT SIMILAR TO 'a%'", "not (t.tx similar to 'a%')"},
		{"tx SIMILAR TO 'a#%' ESCAPE '#'", "similar to(t.tx, 'a#%', '#')"},
		{"i SIMILAR TO 'a'", "error"},
		// JSON: -> and ->> on json or jsonb with a text or int4 key.
		{"j -> 'a'", "(t.j -> 'a')"},
		{"j ->> 'a'", "(t.j ->> 'a')"},
		{"(j -> 'a') -> 0", "((t.j -> 'a') -> 0)"},
		{"js -> 'a'", "(t.js -> 'a')"},
		{"j -> i", "(t.j -> t.i)"},
		{"j -> k", "error"}, // no jsonb -> bigint
		{"tx -> 'a'", "error"},
		{"j -> f", "error"},
		// Containment: jsonb with jsonb (a literal reads as jsonb), arrays
		// of one element type.
		{`j @> '{"a": 1}'::jsonb`, "(t.j @> cast('{\"a\": 1}' as jsonb))"},
		{`j @> '{"a": 1}'`, "(t.j @> cast('{\"a\": 1}' as jsonb))"},
		{`'{}' <@ j`, "(cast('{}' as jsonb) <@ t.j)"},
		{"js @> js", "error"}, // json has no @>
		{"ia @> ia", "(t.ia @> t.ia)"},
		{"ia <@ CAST(ARRAY[2, 3] AS BIGINT[])", "(t.ia <@ array:int8(2, 3))"},
		{"ia @> CAST(ARRAY[] AS BIGINT[])", "(t.ia @> array:int8())"},
		{"ia @> ta", "error"},
		{"CAST(ARRAY['a'] AS TEXT[])", "error"},
		{"CAST(tx AS TEXT[])", "error"},
		{"CAST(NULL AS BIGINT[])", "null"},
		// Subscripts of array columns.
		{"ia[1]", "(t.ia [] 1)"},
		{"(ta)[i]", "(t.ta [] t.i)"},
		{"ia[1:2]", "error"},
		{"ia[1][2]", "error"},
		{"tx[1]", "error"},
		// Functions.
		{"timezone('UTC', ts)", "timezone('UTC', t.ts)"},
		{"tz AT TIME ZONE 'UTC'", "timezone('UTC', t.tz)"},
		{"timezone('UTC', CAST('2020-01-01 10:00' AS TIMESTAMP))", "timezone('UTC', '2020-01-01 10:00'::timestamp)"},
		{"timezone('UTC', '2020-01-01')", "error"},
		{"timezone('UTC', i)", "error"},
		{"sin(f)", "sin(t.f)"},
		{"cos(i)", "cos(t.i)"},
		{"sin(tx)", "error"},
		{"trunc(f)", "trunc(t.f)"},
		{"trunc(n, 2)", "trunc(t.n, 2)"},
		{"trunc(i)", "error"},
		{"trunc(n, k)", "error"},
		{"div(n, 2)", "div(t.n, 2)"},
		{"div(f, 2)", "error"},
		{"lpad(tx, 5)", "lpad(t.tx, 5)"},
		{"rpad(tx, i, '*')", "rpad(t.tx, t.i, '*')"},
		{"lpad(tx, k)", "error"},
		{"encode(by, 'hex')", "encode(t.by, 'hex')"},
		{"decode('616263', 'hex')", "decode('616263', 'hex')"},
		{"encode(tx, 'hex')", "error"},
	}
	for _, tc := range tests {
		sql := "SELECT " + tc.expr + " AS e FROM t"
		p, err := Build(s, sql)
		if tc.want == "error" {
			if err == nil {
				t.Errorf("%s: planned, want an error:\n%s", sql, p.Explain())
			} else if !errors.Is(err, ErrUnsupported) && !strings.Contains(err.Error(), "does not exist") {
				t.Errorf("%s: %v, want unsupported or does not exist", sql, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		got := projected(p)
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", sql, got, tc.want)
		}
	}
}

// projected prints the expression the plan's top projection computes.
func projected(p *plan.Plan) string {
	n := p.Root
	for n.Op != plan.OpProject && len(n.Inputs) > 0 {
		n = n.Inputs[0]
	}
	if n.Op != plan.OpProject || len(n.Proj) == 0 {
		return "?" + n.Op.String()
	}
	return plan.NewFormatter(p.Meta, p.Root, true).Expr(n.Proj[0].Expr)
}

// TestPostgresOperatorsNotInSQLite: the sqlite dialect plans none of the
// PostgreSQL-only forms.
func TestPostgresOperatorsNotInSQLite(t *testing.T) {
	s, err := catalog.LoadDDL("CREATE TABLE t (k integer PRIMARY KEY, tx text, j json);", catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{"k # 1", "tx SIMILAR TO 'a'", "j -> 'a'", "timezone('UTC', tx)", "lpad(tx, 2)", "div(k, 2)"} {
		if _, err := Build(s, "SELECT "+e+" FROM t"); err == nil {
			t.Errorf("sqlite planned %s", e)
		}
	}
}
