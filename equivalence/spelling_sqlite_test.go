package equivalence_test

import (
	"context"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
)

// TestSpellingChoiceAssumedSQLite: under NOCASE, operators that merge
// equal rows return one of the spellings they merge, and which one
// follows SQLite's plan: its DISTINCT keeps the first row it meets, its
// UNION, INTERSECT and EXCEPT the last, and which table a join scans
// first decides what comes first. Each "apart" pair was proved
// equivalent outright, yet SQLite returns 'a' for one query and 'A' for
// the other on the rows below: SQLite 3.54 (the Go driver) for some,
// SQLite 3.40 (the sqlite3 shell) for others: the self-UNION returns
// 'A' on 3.40 and 'a' on 3.54. The spelling is the engine's choice, not
// the query's meaning. A proof between them now names the
// same_spelling assumption; pairs that merge rows with the same operator
// over the same subquery, or over a key, or over BINARY columns, stay
// proved outright. Every label is checked on the rows.
func TestSpellingChoiceAssumedSQLite(t *testing.T) {
	const ddl = `CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT COLLATE NOCASE, k INT, plain TEXT, code TEXT COLLATE NOCASE NOT NULL UNIQUE);
CREATE TABLE u (id INTEGER PRIMARY KEY, name TEXT COLLATE NOCASE, k INT);`
	const rows = `INSERT INTO t VALUES (1, 'a', 1, 'a', 'x'), (2, 'A', 2, 'A', 'y'), (3, 'b', 2, 'b', 'z');
INSERT INTO u VALUES (1, 'B', 2), (2, 'c', 1), (3, 'a', 2);`
	ctx := context.Background()
	db, f := sqliteFile(t, ddl+rows)
	for _, c := range []struct {
		ref, cand string
		apart     bool // SQLite returns other spellings on the rows: only an assumed proof
	}{
		{"SELECT name FROM t UNION SELECT name FROM t", "SELECT DISTINCT name FROM t", true},
		{"SELECT name FROM t EXCEPT SELECT name FROM u WHERE 1 = 0", "SELECT DISTINCT name FROM t", true},
		{"SELECT DISTINCT name FROM (SELECT name FROM t UNION ALL SELECT name FROM u)", "SELECT DISTINCT name FROM (SELECT name FROM u UNION ALL SELECT name FROM t)", true},
		{"SELECT DISTINCT t.name FROM t JOIN u ON t.k = u.k", "SELECT DISTINCT t.name FROM u JOIN t ON t.k = u.k", true},
		// The same operator over the same subquery: SQLite runs it alike.
		{"SELECT name FROM (SELECT name FROM t UNION SELECT name FROM u) AS s", "SELECT name FROM t UNION SELECT name FROM u", false},
		{"SELECT DISTINCT name FROM t", "SELECT DISTINCT name FROM t ORDER BY name", false},
		// Nothing to choose: a key within the merged columns, BINARY
		// columns, or UNION ALL.
		{"SELECT DISTINCT code FROM t", "SELECT code FROM t GROUP BY code", false},
		{"SELECT DISTINCT id, name FROM t", "SELECT id, name FROM t", false},
		{"SELECT plain FROM t UNION SELECT plain FROM t", "SELECT DISTINCT plain FROM t", false},
		{"SELECT DISTINCT t.plain FROM t JOIN u ON t.k = u.k", "SELECT DISTINCT t.plain FROM u JOIN t ON t.k = u.k", false},
		{"SELECT name FROM t UNION ALL SELECT name FROM u", "SELECT name FROM u UNION ALL SELECT name FROM t", false},
	} {
		v, err := equivalence.Judge(ctx, f.Schema, c.ref, c.cand, equivalence.Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, b := bagOf(t, db, c.ref), bagOf(t, db, c.cand)
		sa, sb := shellBag(t, ddl+rows, c.ref), shellBag(t, ddl+rows, c.cand)
		if apart := a != b || sa != sb; apart != c.apart {
			t.Fatalf("%s / %s: SQLite 3.54 returns %q vs %q, the sqlite3 shell %q vs %q; the case says apart = %v", c.ref, c.cand, a, b, sa, sb, c.apart)
		}
		checkSpellingVerdict(t, v, c.ref, c.cand, c.apart)
	}
}

// checkSpellingVerdict checks v, the verdict on ref and cand: where the
// engine spells their results apart (apart), a proof must name
// same_spelling and no counterexample may be claimed; elsewhere the pair
// is equivalent outright.
func checkSpellingVerdict(t *testing.T, v equivalence.Verdict, ref, cand string, apart bool) {
	t.Helper()
	assumed := false
	for _, a := range v.Assumptions {
		assumed = assumed || a.Kind == equivalence.AssumeSameSpelling
	}
	switch {
	case apart && v.Label == equivalence.Equivalent:
		t.Errorf("%s / %s: equivalent outright (rules %v), but the engine spells them apart", ref, cand, v.Rules)
	case apart && v.Label == equivalence.EquivalentUnderAssumptions && !assumed:
		t.Errorf("%s / %s: proved under %v, without same_spelling", ref, cand, v.Assumptions)
	case apart && v.Label == equivalence.NotEquivalent:
		t.Errorf("%s / %s: not_equivalent, though the two differ only in the spelling the engine chooses", ref, cand)
	case !apart && (v.Label != equivalence.Equivalent || assumed):
		t.Errorf("%s / %s: %s %v, want equivalent outright", ref, cand, v.Summary(), v.Assumptions)
	}
}

// shellBag is q's rows in the sqlite3 shell (SQLite 3.40 on Debian; see
// scripts/install-test-deps.sh) over a fresh database made by script,
// sorted, as text.
func shellBag(t *testing.T, script, q string) string {
	t.Helper()
	cli, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Fatal("the sqlite3 shell is not installed (scripts/install-test-deps.sh installs it)")
	}
	out, err := exec.Command(cli, "-bail", "-list", "-nullvalue", "NULL", ":memory:", script+"\n"+q+";").CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3 shell: %s: %v: %s", q, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
