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

const (
	bpcharUnitDDL = `CREATE TABLE b (id integer PRIMARY KEY, c char(4), d char(2), v varchar(5), x text)`
	bpCannot      = "cannot execute"
)

// bpcharCases run on one row: (1, 'ab', 'ab', 'ab ', E'ab\t'); the
// expected values are PostgreSQL's (TestBpcharText checks them there).
var bpcharCases = []struct{ sql, want string }{
	{"SELECT c, d FROM b", "ab  |ab"},
	{"SELECT c LIKE 'ab', c LIKE 'ab%', c LIKE 'ab  ', c LIKE 'ab__', d LIKE 'ab' FROM b", "false|true|true|true|true"},
	{"SELECT c = 'ab', 'ab' = c, c < 'abc', c = d, c > d, c >= 'a' FROM b", "true|true|true|true|false|true"},
	{"SELECT c = 'ab ' FROM b", bpCannot}, // PostgreSQL: true; as k.s of WITH k AS (SELECT 'ab ' AS s): false
	{"WITH k AS (SELECT 'ab ' AS s) SELECT c = k.s FROM b, k", bpCannot},
	{"SELECT c < x FROM b", "true"}, // char vs text compares as text: 'ab' < 'ab\t'
	{"SELECT length(c), char_length(c), c || 'x', upper(c), CAST(c AS varchar(3)) FROM b", "2|2|abx|AB|ab"},
	{"SELECT count(*) FROM b b1 JOIN b b2 ON b1.c = b2.d", "1"},
	{"SELECT DISTINCT c FROM b UNION ALL SELECT c FROM b", "ab  ;ab  "},
	{"SELECT c FROM b WHERE c IN ('ab', 'x')", "ab  "},
	{"SELECT c = v FROM b", bpCannot},                   // bpchar = bpchar for varchar, text = text for text
	{"SELECT c::text FROM b", "ab"},                     // the cast strips the padding
	{"SELECT COALESCE(c, 'z') FROM b", bpCannot},        // result type from several inputs
	{"SELECT c FROM b UNION SELECT d FROM b", bpCannot}, // widths differ
	{"SELECT CAST(c AS char(1)) FROM b", bpCannot},
}

// TestBpchar checks char(n) semantics on one row holding 'ab' in a
// char(4) column; the expected values are PostgreSQL 15's.
func TestBpchar(t *testing.T) {
	s, err := catalog.LoadDDL(bpcharUnitDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	db := exec.Database{"b": {{exec.Int(1), exec.Text("ab"), exec.Text("ab"), exec.Text("ab "), exec.Text("ab\t")}}}
	const cannot = bpCannot
	for _, c := range bpcharCases {
		p, err := planner.Plan(context.Background(), s, c.sql, planner.Options{})
		if err != nil {
			t.Fatalf("plan %q: %v", c.sql, err)
		}
		res, err := exec.Execute(context.Background(), p, db)
		got := cannot
		if err == nil {
			var rows []string
			for _, r := range res.Rows {
				vals := make([]string, len(r))
				for j, v := range r {
					vals[j] = v.String()
				}
				rows = append(rows, strings.Join(vals, "|"))
			}
			got = strings.Join(rows, ";")
		} else if !errors.Is(err, exec.ErrCannotExecute) {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s = %q, want %q", c.sql, got, c.want)
		}
	}
}
