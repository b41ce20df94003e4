package exec_test

import (
	"context"
	"database/sql"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	pexec "github.com/pgequiv/pgequiv/planner/exec"
)

// TestSQLiteCompoundAffinity (issue 33, item 10): a compound subquery's
// column (UNION, INTERSECT, EXCEPT, also through a CTE) has its arms'
// affinity where they agree, in every SQLite version: the executor must
// return what real SQLite returns, the Go driver's (3.54) and the
// sqlite3 shell's (3.40). Where the arms' affinities differ, the
// versions answer apart (3.40 follows the leftmost arm, and each arm's
// own where it pushes the WHERE down; 3.54 none): the executor must call
// the result nondeterministic, and the engines must indeed disagree on
// at least one such query.
func TestSQLiteCompoundAffinity(t *testing.T) {
	const ddl = `CREATE TABLE t (year INTEGER, ty TEXT); CREATE TABLE t2 (year INTEGER, ty TEXT); CREATE TABLE u (year TEXT);`
	const data = `INSERT INTO t VALUES (2014, '2014'), ('abc', '02015'); INSERT INTO t2 VALUES (2015, '2015.0'), (7, 'x'); INSERT INTO u VALUES ('02015'), ('2016');`
	mem := pexec.Database{
		"t":  {{pexec.Int(2014), pexec.Text("2014")}, {pexec.Text("abc"), pexec.Text("02015")}},
		"t2": {{pexec.Int(2015), pexec.Text("2015.0")}, {pexec.Int(7), pexec.Text("x")}},
		"u":  {{pexec.Text("02015")}, {pexec.Text("2016")}},
	}
	cases := []struct {
		q     string
		mixed bool // the arms' affinities differ
	}{
		{"SELECT year FROM (SELECT year FROM t UNION SELECT year FROM t2) WHERE year = '2014'", false},
		{"SELECT year FROM (SELECT year FROM t UNION ALL SELECT year FROM t2) WHERE year = 2014.0", false},
		{"SELECT year FROM (SELECT year FROM t UNION SELECT year FROM t2) WHERE year = 2014", false},
		{"SELECT ty FROM (SELECT ty FROM t UNION SELECT ty FROM t2) WHERE ty > 300", false},
		{"SELECT ty FROM (SELECT ty FROM t UNION SELECT ty FROM t2) WHERE ty = 2015", false},
		{"WITH c AS (SELECT year FROM t EXCEPT SELECT year FROM t2) SELECT year FROM c WHERE year = '2014'", false},
		{"SELECT year FROM (SELECT year FROM t INTERSECT SELECT year FROM t) WHERE year IN ('2014', '7')", false},
		{"SELECT (SELECT year FROM t2 UNION SELECT year FROM t2 ORDER BY 1 LIMIT 1) = '7'", false},
		{"SELECT c FROM (SELECT CAST(year AS TEXT) AS c FROM t2 UNION SELECT ty FROM t2) WHERE c = 7", false},
		{"SELECT year FROM (SELECT year FROM t UNION SELECT year FROM t2 UNION SELECT year FROM t) WHERE year = '7'", false},
		// The arms differ: INTEGER and TEXT, none and INTEGER.
		{"SELECT year FROM (SELECT year FROM t UNION SELECT year FROM u) WHERE year = 2015", true},
		{"SELECT year FROM (SELECT year FROM u UNION ALL SELECT year FROM t) WHERE year = 2014", true},
		{"SELECT x FROM (SELECT 1 AS x UNION SELECT year FROM t) WHERE x = '2014'", true},
	}
	ctx := context.Background()
	schema, err := catalog.LoadDDL(ddl, catalog.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, ddl+data); err != nil {
		t.Fatal(err)
	}
	enginesApart := false
	for _, c := range cases {
		p, err := planner.Plan(ctx, schema, c.q, planner.Options{})
		if err != nil {
			t.Fatalf("%s: plan: %v", c.q, err)
		}
		got, err := pexec.ExecuteWith(ctx, p, mem, pexec.Options{Dialect: catalog.SQLite})
		if err != nil {
			t.Fatalf("%s: execute: %v", c.q, err)
		}
		lib, err := liteRows(ctx, db, c.q)
		if err != nil {
			t.Fatalf("%s: sqlite: %v", c.q, err)
		}
		shell := shellLines(t, ddl+data, c.q)
		if c.mixed {
			if !got.Nondeterministic {
				t.Errorf("%s: arms of other affinities, yet a deterministic result %v", c.q, liteGot(got))
			}
			enginesApart = enginesApart || plainLines(got) == nil || !equalStrings(shell, plainRowsOfLib(lib))
			continue
		}
		if got.Nondeterministic {
			t.Errorf("%s: nondeterministic, yet the arms agree", c.q)
		}
		if diff := liteCompareResults(got, lib); diff != "" {
			t.Errorf("%s: %s\n exec:   %v\n sqlite: %v", c.q, diff, liteGot(got), lib)
		}
		if g := plainLines(got); !equalStrings(g, shell) {
			t.Errorf("%s: exec %q, the sqlite3 shell %q", c.q, g, shell)
		}
	}
	if !enginesApart {
		t.Error("no query over arms of other affinities tells SQLite versions apart: the nondeterminism is not shown")
	}
}

// shellLines runs q in the sqlite3 shell (3.40 on Debian) over a fresh
// database made by script and returns its rows, sorted.
func shellLines(t *testing.T, script, q string) []string {
	t.Helper()
	cli, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Fatal("the sqlite3 shell is not installed (scripts/install-test-deps.sh installs it)")
	}
	out, err := exec.Command(cli, "-bail", "-list", ":memory:", script+"\n"+q+";").CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3 shell: %s: %v: %s", q, err, out)
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	return lines
}

// plainLines writes the executor's rows as the shell does (integers and
// text as they are), sorted; nil where a value is of another kind.
func plainLines(r *pexec.Result) []string {
	var lines []string
	for _, row := range r.Rows {
		parts := make([]string, len(row))
		for i, v := range row {
			switch v.K {
			case pexec.KInt:
				parts[i] = strconv.FormatInt(v.I, 10)
			case pexec.KText:
				parts[i] = v.S
			case pexec.KBool:
				parts[i] = map[bool]string{true: "1", false: "0"}[v.B]
			default:
				return nil
			}
		}
		lines = append(lines, strings.Join(parts, "|"))
	}
	sort.Strings(lines)
	return lines
}

// plainRowsOfLib turns liteRows' canonical values (n:1, s:x) into the
// shell's plain text, sorted.
func plainRowsOfLib(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		parts := strings.Split(r, "|")
		for j, p := range parts {
			parts[j] = strings.TrimPrefix(strings.TrimPrefix(p, "n:"), "s:")
		}
		out[i] = strings.Join(parts, "|")
	}
	sort.Strings(out)
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
