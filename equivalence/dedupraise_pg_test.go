package equivalence_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
)

// TestUnreadDedupColumnRaisesPG: a DISTINCT, a set operation or a GROUP
// BY evaluates every column it compares, so PostgreSQL fails SELECT k
// FROM (SELECT k, i + 1 FROM t UNION ...) on the largest i, though no
// one reads i + 1; a rule that drops the deduplication (UNION read as
// OR, INTERSECT as AND, an IN that ignores duplicates, a key that makes
// DISTINCT redundant) leaves i + 1 unread, and the plan answers. The
// judge must not prove such pairs (planner/norm/raises_dedup.go); the
// same shapes over a column that cannot raise stay proved. Each case's
// truth is checked on PostgreSQL first.
func TestUnreadDedupColumnRaisesPG(t *testing.T) {
	ctx := context.Background()
	conn, s := pgLoaded(t, ctx, "CREATE TABLE dr_t (k int PRIMARY KEY, i int, s text); CREATE TABLE dr_u (id int PRIMARY KEY, tk int)")
	pgRefill(t, ctx, conn, "dr_t, dr_u",
		"INSERT INTO dr_t VALUES (1, 2147483647, 'a'), (2, 0, NULL), (3, 5, 'a')",
		"INSERT INTO dr_u VALUES (1, 1), (2, 3)")
	cases := []struct {
		name  string
		a, b  string
		equal bool // proved, and PostgreSQL answers both alike
	}{
		{"UNION of i + 1", "SELECT x.k FROM (SELECT k, i + 1 AS j FROM dr_t UNION SELECT k, i + 1 AS j FROM dr_t) x", "SELECT k FROM dr_t", false},
		{"UNION of i + 1 passed on by a projection", "SELECT x.k FROM (SELECT y.k, y.j FROM (SELECT k, i + 1 AS j FROM dr_t UNION SELECT k, i + 1 FROM dr_t) y) x", "SELECT k FROM dr_t", false},
		{"UNION of i + 1, read", "SELECT x.j FROM (SELECT k, i + 1 AS j FROM dr_t WHERE i < 9 UNION SELECT k, i + 1 FROM dr_t WHERE i < 9) x", "SELECT i + 1 FROM dr_t WHERE i < 9", true},
		{"UNION of i", "SELECT x.k FROM (SELECT k, i AS j FROM dr_t UNION SELECT k, i AS j FROM dr_t) x", "SELECT k FROM dr_t", true},
		{"INTERSECT of i + 1", "SELECT x.k FROM (SELECT k, i + 1 AS j FROM dr_t INTERSECT SELECT k, i + 1 AS j FROM dr_t) x", "SELECT k FROM dr_t", false},
		{"INTERSECT of s || 'x'", "SELECT x.k FROM (SELECT k, s || 'x' AS j FROM dr_t INTERSECT SELECT k, s || 'x' AS j FROM dr_t) x", "SELECT k FROM dr_t", true},
		{"IN over a DISTINCT of i + 1", "SELECT k FROM dr_t WHERE k IN (SELECT y.k FROM (SELECT DISTINCT k, i + 1 FROM dr_t) y)", "SELECT k FROM dr_t", false},
		{"IN over a DISTINCT of i", "SELECT k FROM dr_t WHERE k IN (SELECT y.k FROM (SELECT DISTINCT k, i FROM dr_t) y)", "SELECT k FROM dr_t", true},
		{"DISTINCT of i + 1 on a key", "SELECT x.k FROM (SELECT DISTINCT k, i + 1 AS j FROM dr_t) x", "SELECT k FROM dr_t", false},
		{"DISTINCT join of i + 1", "SELECT x.k FROM (SELECT DISTINCT t.k, t.i + 1 AS j FROM dr_t t JOIN dr_u u ON u.tk = t.k) x",
			"SELECT t.k FROM dr_t t WHERE EXISTS (SELECT 1 FROM dr_u u WHERE u.tk = t.k)", false},
		{"GROUP BY k, i + 1", "SELECT k, count(*) FROM dr_t GROUP BY k, i + 1", "SELECT k, count(*) FROM dr_t GROUP BY k", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ra, rb := pgQuery(ctx, conn, c.a), pgQuery(ctx, conn, c.b)
			same := ra.err == nil && rb.err == nil && slices.Equal(dedupRaiseBag(ra.rows), dedupRaiseBag(rb.rows))
			if same != c.equal {
				t.Fatalf("PostgreSQL: %v %v vs %v %v, the case says alike=%v", ra.rows, ra.err, rb.rows, rb.err, c.equal)
			}
			v, err := equivalence.Judge(ctx, s, c.a, c.b, equivalence.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if v.Label.Proved() != c.equal {
				t.Errorf("label %s (rules %v, notes %v), want proved=%v", v.Label, v.Rules, v.Notes, c.equal)
			}
		})
	}
}

// dedupRaiseBag is rows as sorted lines, to compare bags.
func dedupRaiseBag(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, "|")
	}
	slices.Sort(out)
	return out
}
