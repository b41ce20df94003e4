package build

import (
	"errors"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

func TestRewriteSQLite(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SELECT `name` FROM `dogs`", `SELECT "name" FROM "dogs"`},
		{"SELECT `a\"b` FROM t", `SELECT "a""b" FROM t`},
		{"SELECT a FROM t LIMIT 10, 5", "SELECT a FROM t LIMIT 5 OFFSET 10"},
		{"SELECT a FROM t limit 2 , 3", "SELECT a FROM t LIMIT 3 OFFSET 2"},
		{"SELECT a FROM t LIMIT 10", "SELECT a FROM t LIMIT 10"},
		{"SELECT a FROM t LIMIT 10 OFFSET 2", "SELECT a FROM t LIMIT 10 OFFSET 2"},
		{"SELECT a FROM t WHERE a == 1", "SELECT a FROM t WHERE a = 1"},
		{"SELECT a FROM t WHERE a = '=='", "SELECT a FROM t WHERE a = '=='"},
		{"SELECT '`x`', \"`y`\" FROM t", "SELECT '`x`', \"`y`\" FROM t"},
		{"SELECT a FROM t -- LIMIT 1, 2 `c`\n", "SELECT a FROM t -- LIMIT 1, 2 `c`\n"},
		{"SELECT * FROM a JOIN b WHERE a.x = b.x", "SELECT * FROM a CROSS JOIN b WHERE a.x = b.x"},
		{"SELECT * FROM a JOIN b AS bb", "SELECT * FROM a CROSS JOIN b AS bb"},
		{"SELECT * FROM a INNER JOIN b bb ORDER BY 1", "SELECT * FROM a CROSS JOIN b bb ORDER BY 1"},
		{"SELECT * FROM a JOIN s.b", "SELECT * FROM a CROSS JOIN s.b"},
		{"SELECT * FROM a JOIN `b`", `SELECT * FROM a CROSS JOIN "b"`},
		{"SELECT * FROM a JOIN b ON a.x = b.x", "SELECT * FROM a JOIN b ON a.x = b.x"},
		{"SELECT * FROM a JOIN b bb USING (x)", "SELECT * FROM a JOIN b bb USING (x)"},
		{"SELECT * FROM a CROSS JOIN b", "SELECT * FROM a CROSS JOIN b"},
		{"SELECT * FROM a NATURAL JOIN b", "SELECT * FROM a NATURAL JOIN b"},
		{"SELECT * FROM a JOIN (SELECT 1) s", "SELECT * FROM a JOIN (SELECT 1) s"},
		// An alias that merely ends in "inner" is not the INNER keyword.
		{"SELECT * FROM a dinner JOIN b", "SELECT * FROM a dinner CROSS JOIN b"},
		{"SELECT * FROM a AS inner_ JOIN b", "SELECT * FROM a AS inner_ CROSS JOIN b"},
		// SQLite outer joins without a condition pair every row: ON true.
		{"SELECT * FROM a LEFT JOIN b", "SELECT * FROM a LEFT JOIN b ON true"},
		{"SELECT * FROM a LEFT OUTER JOIN b bb WHERE x = 1", "SELECT * FROM a LEFT OUTER JOIN b bb  ON true WHERE x = 1"},
		{"SELECT * FROM a left join b JOIN c ON a.x = c.x", "SELECT * FROM a left join b  ON true JOIN c ON a.x = c.x"},
		{"SELECT * FROM a LEFT JOIN b ON a.x = b.x", "SELECT * FROM a LEFT JOIN b ON a.x = b.x"},
	}
	for _, tc := range tests {
		got, pos := rewriteSQLite(tc.in)
		if got != tc.want {
			t.Errorf("rewriteSQLite(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
		if len(pos) != len(got) {
			t.Errorf("%q: %d positions for %d bytes", tc.in, len(pos), len(got))
		}
		for i, p := range pos {
			if p < 0 || int(p) >= len(tc.in) || (i > 0 && p < pos[i-1]) {
				t.Errorf("%q: position %d of output byte %d out of order or range", tc.in, p, i)
				break
			}
		}
	}
}

func TestLexSQLUnterminated(t *testing.T) {
	for _, in := range []string{"'abc", "\"abc", "`abc", "/* abc", "-- abc", "x`"} {
		toks := lexSQL(in)
		var b strings.Builder
		for _, tk := range toks {
			b.WriteString(tk.text)
		}
		if b.String() != in {
			t.Errorf("tokens of %q do not cover the input: %q", in, b.String())
		}
	}
}

func schema(t *testing.T, d catalog.Dialect) *catalog.Schema {
	t.Helper()
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func canonical(t *testing.T, s *catalog.Schema, sql string) string {
	t.Helper()
	p, err := Build(s, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return p.Canonical()
}

func TestSQLiteSurfaceSyntaxPlansLikePostgres(t *testing.T) {
	lite, pg := schema(t, catalog.SQLite), schema(t, catalog.Postgres)
	tests := []struct{ lite, pg string }{
		{"SELECT `name` FROM `Dogs` WHERE `Age` == 3", "SELECT name FROM dogs WHERE age = 3"},
		{"SELECT name FROM dogs LIMIT 2, 5", "SELECT name FROM dogs LIMIT 5 OFFSET 2"},
		{"SELECT d.name FROM dogs d JOIN owners o WHERE d.owner_id = o.owner_id", "SELECT d.name FROM dogs d CROSS JOIN owners o WHERE d.owner_id = o.owner_id"},
		{"SELECT dinner.name FROM dogs dinner JOIN owners", "SELECT dinner.name FROM dogs dinner CROSS JOIN owners"},
		{"SELECT o.first_name, d.name FROM owners o LEFT JOIN dogs d", "SELECT o.first_name, d.name FROM owners o LEFT JOIN dogs d ON true"},
		{"SELECT o.first_name FROM owners o LEFT JOIN dogs d WHERE o.city = 'x'", "SELECT o.first_name FROM owners o LEFT JOIN dogs d ON true WHERE o.city = 'x'"},
		{"SELECT NAME FROM DOGS WHERE Dogs.AGE > 1", "SELECT name FROM dogs WHERE dogs.age > 1"},
		// A double-quoted word that names no column is a string.
		{`SELECT name FROM dogs WHERE name = "Rex"`, "SELECT name FROM dogs WHERE name = 'Rex'"},
		// ... but one that names a column is that column, in any case.
		{`SELECT "NAME" FROM dogs`, "SELECT name FROM dogs"},
		// SQLite's LIKE ignores case.
		{"SELECT name FROM dogs WHERE name LIKE 'r%'", "SELECT name FROM dogs WHERE name ILIKE 'r%'"},
		{"SELECT name FROM dogs WHERE name NOT LIKE 'r%'", "SELECT name FROM dogs WHERE name NOT ILIKE 'r%'"},
		// Multi-argument max is scalar.
		{"SELECT max(age, 3) FROM dogs", "SELECT greatest(age, 3) FROM dogs"},
		// NULLs sort first ascending in SQLite.
		{"SELECT name FROM dogs ORDER BY age", "SELECT name FROM dogs ORDER BY age NULLS FIRST"},
		{"SELECT name FROM dogs ORDER BY age DESC", "SELECT name FROM dogs ORDER BY age DESC NULLS LAST"},
	}
	for _, tc := range tests {
		if a, b := canonical(t, lite, tc.lite), canonical(t, pg, tc.pg); a != b {
			t.Errorf("%s\n%s\n--- differs from postgres %s\n%s", tc.lite, a, tc.pg, b)
		}
	}
}

func TestPostgresIsStrict(t *testing.T) {
	pg := schema(t, catalog.Postgres)
	for _, sql := range []string{
		"SELECT `name` FROM dogs",
		`SELECT name FROM dogs WHERE name = "Rex"`,
		`SELECT "NAME" FROM dogs`,
		"SELECT name FROM dogs LIMIT 2, 5",
		"SELECT name, count(*) FROM dogs",
		// No || operator takes two non-text operands (42883 in
		// PostgreSQL); jsonb || and bytea || are not text concatenation.
		"SELECT age || dog_id FROM dogs",
		"SELECT 1 || 2.5",
		`SELECT '{"a":1}'::jsonb || '{"b":2}'`,
	} {
		if _, err := Build(pg, sql); err == nil {
			t.Errorf("postgres accepted %q", sql)
		}
	}
	// Unquoted names fold to lower case in PostgreSQL too.
	if a, b := canonical(t, pg, "SELECT NAME FROM DOGS"), canonical(t, pg, "SELECT name FROM dogs"); a != b {
		t.Errorf("unquoted upper case: %s vs %s", a, b)
	}
}

func TestErrorPositions(t *testing.T) {
	lite, pg := schema(t, catalog.SQLite), schema(t, catalog.Postgres)
	tests := []struct {
		s       *catalog.Schema
		sql     string
		pos     int
		message string
	}{
		{pg, "SELECT nme FROM dogs", 8, `column "nme" does not exist`},
		{lite, "SELECT `nme` FROM dogs", 8, `column "nme" does not exist`},
		// After rewrites that change lengths, positions still point into
		// the text as written.
		{lite, "SELECT name FROM dogs WHERE age == 1 AND nme = 2", 42, `column "nme" does not exist`},
		{lite, "SELECT `name`, `nme` FROM dogs", 16, `column "nme" does not exist`},
		{lite, "SELECT name FROM dogs LIMIT 1, 2 WHERE", 34, "syntax error"},
		{lite, "SELECT name FROM dogs d JOIN owners o WHERE o.nme = 1", 45, `column "nme" not found in table o`},
		// Positions count characters, not bytes.
		{pg, "SELECT 'héllo', nme FROM dogs", 17, `column "nme" does not exist`},
		{pg, "SELECT name FROM dogs WHERE", 0, "syntax error"},
	}
	for _, tc := range tests {
		_, err := Build(tc.s, tc.sql)
		var be *Error
		if !errors.As(err, &be) {
			t.Errorf("%s: error %v is not *Error", tc.sql, err)
			continue
		}
		if !strings.Contains(be.Msg, tc.message) {
			t.Errorf("%s: message %q, want %q", tc.sql, be.Msg, tc.message)
		}
		if tc.pos > 0 && be.Pos != tc.pos {
			t.Errorf("%s: position %d, want %d (%v)", tc.sql, be.Pos, tc.pos, err)
		}
	}
}

func TestUnsupportedIsMarked(t *testing.T) {
	pg := schema(t, catalog.Postgres)
	for _, sql := range []string{
		"WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r",
		"SELECT DISTINCT ON (age) name FROM dogs",
		"SELECT name FROM dogs WHERE age SIMILAR TO 'a%'", // SIMILAR TO on text only
		"SELECT * FROM generate_series(1, 3)",
		"SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY age) FROM dogs",
		"DELETE FROM dogs",
		"SELECT name FROM dogs WHERE B'101' IS NOT NULL", // a bit string in PostgreSQL, not bytea
		"SELECT X'1F'",
	} {
		_, err := Build(pg, sql)
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: want ErrUnsupported, got %v", sql, err)
		}
	}
	if _, err := Build(pg, "SELECT nme FROM dogs"); errors.Is(err, ErrUnsupported) {
		t.Error("a wrong query is not unsupported syntax")
	}
}

func TestBuildShapes(t *testing.T) {
	pg := schema(t, catalog.Postgres)
	tests := []struct{ sql, want string }{
		{"SELECT name FROM dogs ORDER BY age LIMIT 3",
			"ordered\nproject t1.name\n  limit 3\n    sort t1.age\n      scan dogs as t1"},
		{"SELECT DISTINCT age FROM dogs ORDER BY age",
			"ordered\nsort t1.age\n  distinct\n    project t1.age\n      scan dogs as t1"},
		{"SELECT name FROM dogs LIMIT ALL", "project t1.name\n  scan dogs as t1"},
		{"SELECT o.first_name FROM owners o JOIN dogs d USING (owner_id)",
			"project t1.first_name\n  join inner on (t1.owner_id = t2.owner_id)\n    scan owners as t1\n    scan dogs as t2"},
		{"SELECT 1", "project 1\n  values ()"},
	}
	for _, tc := range tests {
		if got := canonical(t, pg, tc.sql); got != tc.want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.sql, got, tc.want)
		}
	}
	// Each CTE reference gets its own columns.
	p, err := Build(pg, "WITH x AS (SELECT dog_id FROM dogs) SELECT * FROM x a JOIN x b ON a.dog_id = b.dog_id")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Meta.Instances) != 2 || p.Meta.Instances[0].Cols[0] == p.Meta.Instances[1].Cols[0] {
		t.Errorf("CTE inlined twice must give two instances: %+v", p.Meta.Instances)
	}
	// USING merges the column: an unqualified reference is not ambiguous.
	if _, err := Build(pg, "SELECT owner_id FROM owners JOIN dogs USING (owner_id)"); err != nil {
		t.Errorf("USING column: %v", err)
	}
}

func TestCoerceConst(t *testing.T) {
	tests := []struct {
		in   *plan.Expr
		t    catalog.Type
		ok   bool
		want string
	}{
		{plan.NewConst(catalog.Text, " 42 "), catalog.Int, true, "42"},
		{plan.NewConst(catalog.Text, "4.2"), catalog.Int, false, ""},
		{plan.NewConst(catalog.Text, "3.50"), catalog.Numeric, true, "3.5"},
		{plan.NewConst(catalog.Numeric, "-0.0"), catalog.Numeric, true, "0"},
		{plan.NewConst(catalog.Numeric, "007.100"), catalog.Numeric, true, "7.1"},
		{plan.NewConst(catalog.Text, "abc"), catalog.Numeric, false, ""},
		{plan.NewConst(catalog.Int, "7"), catalog.Text, true, "7"},
		{plan.NewConst(catalog.Text, "yes"), catalog.Bool, true, "true"},
		{plan.NewConst(catalog.Text, "maybe"), catalog.Bool, false, ""},
		{plan.NewConst(catalog.Text, "2020-01-01"), catalog.Date, true, "2020-01-01"},
		{plan.NewConst(catalog.Int, "7"), catalog.Date, false, ""},
	}
	for _, tc := range tests {
		got, ok := CoerceConst(tc.in, tc.t)
		if ok != tc.ok || ok && (got.Value != tc.want || got.Typ != tc.t) {
			t.Errorf("CoerceConst(%q %v, %v) = %+v, %v; want %q, %v", tc.in.Value, tc.in.Typ, tc.t, got, ok, tc.want, tc.ok)
		}
	}
	if got, ok := CoerceConst(plan.NewNull(catalog.Null), catalog.Int); !ok || !got.Null || got.Typ != catalog.Int {
		t.Errorf("NULL: %+v %v", got, ok)
	}
}
