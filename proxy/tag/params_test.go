package tag

import (
	"reflect"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence/bind"
)

func TestParameterize(t *testing.T) {
	cases := []struct {
		sql    string
		ok     bool
		want   string
		consts map[int]string
	}{
		{"SELECT abalance FROM pgbench_accounts WHERE aid = 12345", true,
			"SELECT abalance FROM pgbench_accounts WHERE aid = $1", map[int]string{1: "12345"}},
		{"SELECT a FROM t WHERE b = $1 AND c = 'x''y' ORDER BY 1 LIMIT 10", true,
			"SELECT a FROM t WHERE b = $1 AND c = $2 ORDER BY 1 LIMIT $3", map[int]string{2: "'x''y'", 3: "10"}},
		{"SELECT a FROM t /* c 5 */ WHERE y = -5 AND z IN (1.5, $$d$$)", true,
			"SELECT a FROM t /* c 5 */ WHERE y = $1 AND z IN ($2, $3)", map[int]string{1: "-5", 2: "1.5", 3: "$$d$$"}},
		{"SELECT a, count(*) FROM t GROUP BY 1", false, "", nil}, // positional: not a constant
		{"SELECT a FROM t WHERE b = $1", false, "", nil},
		{"SELECT FROM WHERE", false, "", nil},
	}
	for _, tc := range cases {
		p, ok := Parameterize(tc.sql)
		if ok != tc.ok || p.SQL != tc.want || !reflect.DeepEqual(p.Consts, tc.consts) && tc.ok {
			t.Errorf("Parameterize(%q) = %q %v, %v; want %q %v, %v", tc.sql, p.SQL, p.Consts, ok, tc.want, tc.consts, tc.ok)
		}
	}
}

func TestHasParams(t *testing.T) {
	for sql, want := range map[string]bool{"SELECT $1": true, "SELECT '$1'": false, "SELECT 1 /* $1 */": false, "SELECT $$a$$": false} {
		if HasParams(sql) != want {
			t.Errorf("HasParams(%q) = %v", sql, !want)
		}
	}
}

// FuzzParameterize: never panics; what it records are the literal texts
// it replaced, and binding them back into the shape gives the query
// again (negative numbers parenthesized).
func FuzzParameterize(f *testing.F) {
	for _, s := range []string{
		"SELECT a FROM t WHERE b = 1 AND c = 'x' LIMIT 3", "SELECT $1, -2.5, $$q$$", "SELECT 1 /* 2 */ -- 3\n",
		"SELECT interval '1 day', DATE '2020-01-01'", "SELECT a FROM t ORDER BY 1", "SELECT E'\\n', B'101', X'ff', U&'d'",
		"SELECT 1 FROM t WHERE a IN (1, 2, 3) AND b = -0", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		p, ok := Parameterize(sql)
		if !ok {
			return
		}
		for k, v := range p.Consts {
			if k < 1 || !strings.Contains(sql, v) {
				t.Fatalf("constant $%d = %q is not in %q", k, v, sql)
			}
		}
		back, ok := bind.Substitute(p.SQL, p.Consts)
		if !ok {
			t.Fatalf("the shape %q does not scan", p.SQL)
		}
		if strings.NewReplacer("(", "", ")", "").Replace(back) != strings.NewReplacer("(", "", ")", "").Replace(sql) {
			t.Fatalf("bound back %q, want %q", back, sql)
		}
	})
}
