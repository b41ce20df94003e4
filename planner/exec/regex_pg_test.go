package exec_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/planner/exec"
)

// TestRegexText checks regexCases' expected results on PostgreSQL, so
// that TestRegex compares the executor with the engine: every value and
// every error (a case refused by design is run too, and must not be
// something the executor could have answered differently: it is skipped
// only in the comparison).
func TestRegexText(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	conn := pgConn(t, ctx, datetimeOneDDL+" INSERT INTO one VALUES (1, NULL, NULL, NULL);")
	for _, tc := range regexCases {
		if tc.want == cannot_ {
			continue
		}
		got := pgOne(ctx, t, conn, tc.expr)
		if got != tc.want {
			t.Errorf("PostgreSQL: %s = %s, the case says %s", tc.expr, got, tc.want)
		}
	}
}

// pgOne runs SELECT expr FROM one on PostgreSQL: the value's text as the
// executor writes it (true, false, NULL), or ERROR.
func pgOne(ctx context.Context, t *testing.T, conn *pgx.Conn, expr string) string {
	t.Helper()
	rows, err := pgRows(ctx, conn, "SELECT "+expr+" FROM one")
	if err != nil {
		return queryError
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		t.Fatalf("%s: %d rows", expr, len(rows))
	}
	v := rows[0][0]
	switch {
	case v == nil:
		return "NULL"
	case *v == "t":
		return "true"
	case *v == "f":
		return "false"
	}
	return *v
}

// TestRegexFuzzPG compares the executor's ~ and ~* with PostgreSQL's on
// seeded random patterns (from the pieces where ARE and RE2 differ) over
// subjects with letters of both cases, digits, blanks, a newline and a
// backspace: every answer the executor gives must be PostgreSQL's, every
// error must be one there, and most patterns must be answered.
func TestRegexFuzzPG(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	conn := pgConn(t, ctx, "")
	pieces := []string{"a", "b", "B", ".", "*", "+", "?", "|", "(", ")", "(?:", "[ab]", "[^a]", "[a-c]", `\d`, `\w`, `\s`, `\W`,
		"^", "$", "{1,2}", "{2}", "[[:upper:]]", "[[:space:]]", `\b`, `\.`, "-", "[]a]", `[\w-]`, "*?", "{", "}", "]", "1", " "}
	subjects := []string{"", "a", "A", "ab", "aB", "ba", "abc", "b1", "a a", "a\nb", "a\bb", "aab", "--", "B.", "a_1", "{}", "]", "1 2\t"}
	rng := rand.New(rand.NewSource(39))
	answered := 0
	const n = 400
	for i := 0; i < n; i++ {
		var b strings.Builder
		for k := 1 + rng.Intn(6); k > 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		pat := b.String()
		for _, op := range []string{"~", "~*"} {
			rows, pgErr := pgMatches(ctx, conn, op, pat, subjects)
			for j, s := range subjects {
				m, err := exec.AREMatch(s, pat, op == "~*")
				switch {
				case errors.Is(err, exec.ErrCannotExecute):
					continue
				case errors.Is(err, exec.ErrQuery):
					if pgErr == nil {
						t.Errorf("%q %s %q: executor error %v, PostgreSQL none", s, op, pat, err)
					}
				case err != nil:
					t.Fatal(err)
				case pgErr != nil:
					t.Errorf("%q %s %q: executor %v, PostgreSQL %v", s, op, pat, m, pgErr)
				default:
					answered++
					if want := rows[j]; m != want {
						t.Errorf("%q %s %q: executor %v, PostgreSQL %v", s, op, pat, m, want)
					}
				}
			}
		}
	}
	t.Logf("%d of %d matches answered", answered, 2*n*len(subjects))
	if answered < n*len(subjects)/2 {
		t.Errorf("only %d of %d matches answered", answered, 2*n*len(subjects))
	}
}

// pgMatches is s op pat on PostgreSQL for each subject.
func pgMatches(ctx context.Context, conn *pgx.Conn, op, pat string, subjects []string) ([]bool, error) {
	rows, err := conn.Query(ctx, "SELECT s "+op+" $1 FROM unnest($2::text[]) WITH ORDINALITY AS u(s, i) ORDER BY i", pat, subjects)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[bool])
	if err == nil && len(out) != len(subjects) {
		err = fmt.Errorf("%d rows", len(out))
	}
	return out, err
}

// TestRegexFuncsFuzzPG compares regexp_replace (first match, and every
// match with \& in the replacement) and substring(s FROM pattern) with
// PostgreSQL's on seeded random patterns: what a match covers, not only
// whether there is one.
func TestRegexFuncsFuzzPG(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	conn := pgConn(t, ctx, "")
	pieces := []string{"a", "b", "ab", ".", "*", "+", "?", "|", "(", ")", "(?:", "[ab]", "[^a]", `\d`, `\w`, "^", "$", "{1,2}", "{2}", "*?", "x"}
	subjects := []string{"", "a", "ab", "ba", "abab", "aab", "b1b", "a a", "xaxbx", "bbaa"}
	calls := []struct {
		sql string
		run func(s, p string) (exec.Value, error)
	}{
		{"regexp_replace(s, $1, 'X')", func(s, p string) (exec.Value, error) {
			return exec.RegexpReplace([]exec.Value{exec.Text(s), exec.Text(p), exec.Text("X")})
		}},
		{`regexp_replace(s, $1, '<\&>', 'g')`, func(s, p string) (exec.Value, error) {
			return exec.RegexpReplace([]exec.Value{exec.Text(s), exec.Text(p), exec.Text(`<\&>`), exec.Text("g")})
		}},
		{"substring(s from $1)", func(s, p string) (exec.Value, error) {
			return exec.RegexSubstring([]exec.Value{exec.Text(s), exec.Text(p)})
		}},
	}
	rng := rand.New(rand.NewSource(391))
	answered := 0
	const n = 300
	for i := 0; i < n; i++ {
		var b strings.Builder
		for k := 1 + rng.Intn(5); k > 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		pat := b.String()
		for _, c := range calls {
			rows, pgErr := pgTexts(ctx, conn, c.sql, pat, subjects)
			for j, s := range subjects {
				v, err := c.run(s, pat)
				switch {
				case errors.Is(err, exec.ErrCannotExecute):
					continue
				case errors.Is(err, exec.ErrQuery):
					if pgErr == nil {
						t.Errorf("%s, s=%q p=%q: executor error %v, PostgreSQL none", c.sql, s, pat, err)
					}
				case err != nil:
					t.Fatal(err)
				case pgErr != nil:
					t.Errorf("%s, s=%q p=%q: executor %v, PostgreSQL %v", c.sql, s, pat, v, pgErr)
				default:
					answered++
					want := "NULL"
					if rows[j] != nil {
						want = *rows[j]
					}
					if got := v.String(); got != want {
						t.Errorf("%s, s=%q p=%q: executor %s, PostgreSQL %s", c.sql, s, pat, got, want)
					}
				}
			}
		}
	}
	t.Logf("%d of %d calls answered", answered, n*len(calls)*len(subjects))
	if answered < n*len(calls)*len(subjects)/4 {
		t.Errorf("only %d answered", answered)
	}
}

// pgTexts evaluates expr (over a subject s and the pattern $1) on
// PostgreSQL for each subject.
func pgTexts(ctx context.Context, conn *pgx.Conn, expr, pat string, subjects []string) ([]*string, error) {
	rows, err := conn.Query(ctx, "SELECT "+expr+" FROM unnest($2::text[]) WITH ORDINALITY AS u(s, i) ORDER BY i", pat, subjects)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[*string])
	if err == nil && len(out) != len(subjects) {
		err = fmt.Errorf("%d rows", len(out))
	}
	return out, err
}
