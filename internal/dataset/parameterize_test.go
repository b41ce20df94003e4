package dataset

import (
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"
)

func TestParameterizeLiterals(t *testing.T) {
	tests := []struct {
		in, want string
		n        int
	}{
		{"SELECT name FROM dogs WHERE age > 5 AND name = 'Rex'", "SELECT name FROM dogs WHERE age > $1 AND name = $2", 2},
		{"SELECT name FROM dogs WHERE age > -5.5", "SELECT name FROM dogs WHERE age > -$1", 1},
		{"SELECT name FROM dogs WHERE age IN (1, 1)", "SELECT name FROM dogs WHERE age IN ($1, $2)", 2},
		{"SELECT name FROM dogs WHERE date_of_birth > DATE '2020-01-01' AND age = 3", "SELECT name FROM dogs WHERE date_of_birth > DATE $1 AND age = $2", 2},
		{"SELECT name FROM dogs WHERE age = $1 AND weight = 2", "SELECT name FROM dogs WHERE age = $1 AND weight = $2", 1},
		{"SELECT name FROM dogs -- 5\n", "SELECT name FROM dogs -- 5\n", 0},
		// Positions are not literals.
		{"SELECT name, count(*) FROM dogs GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 3", "SELECT name, count(*) FROM dogs GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT $1", 1},
		{"SELECT name FROM dogs ORDER BY age + 1, mod(age, 2)", "SELECT name FROM dogs ORDER BY age + $1, mod(age, $2)", 2},
		{"SELECT `name` FROM dogs WHERE name LIKE 'a%'", "SELECT `name` FROM dogs WHERE name LIKE $1", 1},
	}
	for _, tc := range tests {
		got, n := ParameterizeLiterals(tc.in)
		if got != tc.want || n != tc.n {
			t.Errorf("ParameterizeLiterals(%q) = %q, %d; want %q, %d", tc.in, got, n, tc.want, tc.n)
		}
	}
}

// FuzzParameterizeLiterals: a query that parses still parses with its
// literals replaced, and holds no literal the scanner finds but those
// kept because their replacement would not parse.
func FuzzParameterizeLiterals(f *testing.F) {
	for _, s := range []string{"SELECT 1", "SELECT a FROM t WHERE b = 'x' AND c > 2.5 LIMIT 3", "SELECT DATE '2020-01-01', $1, -4", "SELECT 'a' 'b'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		out, n := ParameterizeLiterals(sql)
		if n == 0 {
			if out != sql {
				t.Fatalf("nothing replaced but %q became %q", sql, out)
			}
			return
		}
		if _, err := pg.Parse(sql); err != nil {
			return
		}
		if _, err := pg.Parse(out); err != nil {
			t.Fatalf("%q parsed; %q does not: %v", sql, out, err)
		}
		if strings.Count(out, "$") < n {
			t.Fatalf("%q: %d replaced but %q", sql, n, out)
		}
	})
}
