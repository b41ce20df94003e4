package planner_test

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/build"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

var update = flag.Bool("update", false, "rewrite golden files")

const testViews = `
CREATE VIEW old_dogs AS SELECT dog_id, name, weight FROM dogs WHERE age > 10;
`

func exampleSchema(t testing.TB, d catalog.Dialect) *catalog.Schema {
	t.Helper()
	s, err := catalog.LoadDDL(catalog.ExampleDDL()+testViews, d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type goldenCase struct {
	name      string
	dialect   catalog.Dialect
	expect    []string
	expectNot []string
	sql       string
}

func readGoldenCases(t *testing.T, path string) []goldenCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []goldenCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "":
		case strings.HasPrefix(line, "=== "):
			fields := strings.Fields(line[4:])
			c := goldenCase{name: fields[0]}
			for _, f := range fields[1:] {
				k, v, _ := strings.Cut(f, "=")
				switch k {
				case "dialect":
					if c.dialect, err = catalog.ParseDialect(v); err != nil {
						t.Fatal(err)
					}
				case "expect":
					c.expect = strings.Split(v, ",")
				case "expect-not":
					c.expectNot = strings.Split(v, ",")
				default:
					t.Fatalf("%s: unknown directive %q", c.name, f)
				}
			}
			cases = append(cases, c)
		default:
			if len(cases) == 0 {
				t.Fatalf("SQL before the first case: %q", line)
			}
			cases[len(cases)-1].sql += line + "\n"
		}
	}
	return cases
}

// TestGolden plans every case of testdata/plans.txt and compares with
// testdata/plans.golden; it also checks that the named rules fired (or
// did not).
func TestGolden(t *testing.T) {
	cases := readGoldenCases(t, "testdata/plans.txt")
	if len(cases) < 40 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	var out strings.Builder
	for _, c := range cases {
		s := exampleSchema(t, c.dialect)
		p, err := planner.Plan(context.Background(), s, c.sql, planner.Options{})
		fmt.Fprintf(&out, "=== %s\n%s", c.name, c.sql)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			fmt.Fprintf(&out, "error: %v\n\n", err)
			continue
		}
		if err := plan.CheckDefinitions(p); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		fmt.Fprintf(&out, "----\n%s\nrules: %s\n\n", p.Explain(), strings.Join(p.Rules, ", "))
		fired := map[string]bool{}
		for _, r := range p.Rules {
			fired[r] = true
		}
		for _, r := range c.expect {
			if !fired[r] {
				t.Errorf("%s: rule %s did not fire (fired: %v)", c.name, r, p.Rules)
			}
		}
		for _, r := range c.expectNot {
			if fired[r] {
				t.Errorf("%s: rule %s fired but must not", c.name, r)
			}
		}
	}
	golden := "testdata/plans.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got := out.String(); got != string(want) {
		t.Errorf("plans differ from %s (run with -update and review the diff):\n%s", golden, firstDiff(string(want), got))
	}
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n  want %q\n  got  %q", i+1, a, b)
		}
	}
	return ""
}

// pureNormalization are the curated cases whose equivalence follows from
// normalization alone; their two queries must get one fingerprint.
var pureNormalization = []string{
	"norm-alias", "norm-alias-without-as", "norm-conjunct-order", "norm-comparison-flip", "norm-between",
	"norm-not-equals", "norm-not-greater", "norm-in-list-or", "norm-not-in-list-and", "norm-string-number-literal",
	"norm-select-star", "norm-output-alias-ignored", "join-implicit-explicit", "join-order",
	"join-column-equivalence-class", "join-left-null-rejecting-where", "join-predicate-pushdown",
	"sub-exists-vs-in", "sub-scoped-alias", "sub-cte-inline", "sub-derived-table-flatten",
	"sub-anti-join-left-is-null", "sub-not-in-not-null", "esm05-group-by-functional-dependency",
	"agg-distinct-vs-group-by", "agg-having-on-key-vs-where", "order-ordinal-vs-name", "order-by-output-alias",
	"order-inside-subquery-ignored", "esm02-distinct-unique-not-null",
}

func TestCaseFingerprints(t *testing.T) {
	cf, err := dataset.ReadCasesFile(shareddata.Path(t, "equivalence/cases.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := catalog.LoadDDL(cf.Schema, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, id := range pureNormalization {
		want[id] = true
	}
	seen := 0
	for _, c := range cf.Cases {
		a, err := planner.Plan(context.Background(), s, c.Reference, planner.Options{})
		if err != nil {
			t.Errorf("%s reference: %v", c.ID, err)
			continue
		}
		b, err := planner.Plan(context.Background(), s, c.Candidate, planner.Options{})
		if err != nil {
			t.Errorf("%s candidate: %v", c.ID, err)
			continue
		}
		same := a.Fingerprint() == b.Fingerprint()
		if want[c.ID] {
			seen++
			if !same {
				t.Errorf("%s: fingerprints differ:\n%s\n---\n%s", c.ID, a.Canonical(), b.Canonical())
			}
		}
		// Only policies can make different plans equivalent; nothing makes
		// equal plans different.
		if c.Expect == dataset.NotEquivalent && same {
			t.Errorf("%s is not equivalent but both plans have fingerprint %s:\n%s", c.ID, a.Fingerprint(), a.Canonical())
		}
	}
	if seen != len(pureNormalization) {
		t.Errorf("found %d of the %d listed cases in cases.yaml", seen, len(pureNormalization))
	}
}

// TestSpiderCoverage requires at least 99% of the shared dataset's
// queries to plan.
func TestSpiderCoverage(t *testing.T) {
	pairs, schemas := loadSpider(t)
	ok, total := 0, 0
	for _, p := range pairs {
		for _, q := range []string{p.Reference, p.Candidate} {
			total++
			pl, err := planner.Plan(context.Background(), schemas[p.DB], q, planner.Options{})
			if err != nil {
				t.Logf("%s: %v", p.ID, err)
				continue
			}
			if err := plan.CheckDefinitions(pl); err != nil {
				t.Errorf("%s: %v", p.ID, err)
			}
			ok++
		}
	}
	if total != 3288 {
		t.Errorf("expected 3288 queries, read %d", total)
	}
	if float64(ok) < 0.99*float64(total) {
		t.Errorf("planned %d/%d, want at least 99%%", ok, total)
	}
}

func loadSpider(t testing.TB) ([]dataset.Pair, map[string]*catalog.Schema) {
	t.Helper()
	pairs, err := dataset.ReadPairsFile(shareddata.Path(t, "data/spider_pair_dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := shareddata.Path(t, "data/schemas")
	schemas := map[string]*catalog.Schema{}
	for _, p := range pairs {
		if schemas[p.DB] != nil {
			continue
		}
		ddl, err := os.ReadFile(filepath.Join(dir, p.DB+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		if schemas[p.DB], err = catalog.LoadDDL(string(ddl), catalog.SQLite); err != nil {
			t.Fatal(err)
		}
	}
	return pairs, schemas
}

func TestErrorsNameObjectAndPosition(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	tests := []struct{ sql, want string }{
		{"SELECT nme FROM dogs", `column "nme" does not exist at position 8`},
		{"SELECT name FROM dgs", `relation "dgs" does not exist at position 18`},
		{"SELECT d.nme FROM dogs d", `column "nme" not found in table d at position 8`},
		{"SELECT x.name FROM dogs d", `missing FROM-clause entry for table "x" at position 8`},
		{"SELECT owner_id FROM dogs JOIN owners ON dogs.owner_id = owners.owner_id", `column reference "owner_id" is ambiguous at position 8`},
		{"SELECT name FROM dogs WHERE", `syntax error`},
		{"SELECT name, COUNT(*) FROM dogs", `column "name" must appear in the GROUP BY clause`},
		{"SELECT name FROM dogs ORDER BY 3", `ORDER BY position 3 is not in select list`},
		{"INSERT INTO dogs VALUES (1)", `is not supported`},
	}
	for _, tc := range tests {
		_, err := planner.Plan(context.Background(), s, tc.sql, planner.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.sql, err, tc.want)
		}
		var be *build.Error
		if err != nil && !errors.As(err, &be) {
			t.Errorf("%q: error %T is not a *build.Error", tc.sql, err)
		}
	}
	_, err := planner.Plan(context.Background(), s, "INSERT INTO dogs VALUES (1)", planner.Options{})
	if !errors.Is(err, build.ErrUnsupported) {
		t.Errorf("INSERT: want ErrUnsupported, got %v", err)
	}
}

func TestFingerprintIgnoresNamesButNotMeaning(t *testing.T) {
	s := exampleSchema(t, catalog.Postgres)
	fp := func(q string) string {
		p, err := planner.Plan(context.Background(), s, q, planner.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return p.Fingerprint()
	}
	if fp("SELECT name AS a FROM dogs") != fp("SELECT d.name AS b FROM dogs d") {
		t.Error("output names or aliases changed the fingerprint")
	}
	for _, pair := range [][2]string{
		{"SELECT name FROM dogs WHERE age > 3", "SELECT name FROM dogs WHERE age >= 3"},
		{"SELECT name FROM dogs LIMIT 1", "SELECT name FROM dogs LIMIT 2"},
		{"SELECT name FROM dogs ORDER BY age", "SELECT name FROM dogs ORDER BY age DESC"},
		{"SELECT city FROM owners UNION SELECT city FROM professionals", "SELECT city FROM owners UNION ALL SELECT city FROM professionals"},
		{"SELECT name FROM dogs WHERE name LIKE 'a%'", "SELECT name FROM dogs WHERE name ILIKE 'a%'"},
	} {
		if fp(pair[0]) == fp(pair[1]) {
			t.Errorf("%q and %q share a fingerprint", pair[0], pair[1])
		}
	}
}

// FuzzPlan: no input may panic the planner, in either dialect.
func FuzzPlan(f *testing.F) {
	for _, seed := range []string{
		"SELECT name FROM dogs WHERE age > 3", "SELECT * FROM dogs d JOIN owners o USING (owner_id)",
		"SELECT `name` FROM dogs LIMIT 1, 2", "WITH a AS (SELECT * FROM a) SELECT * FROM a",
		"SELECT COUNT(*) FROM dogs GROUP BY 1 HAVING COUNT(*) > 1 ORDER BY 2",
		"SELECT name FROM dogs WHERE owner_id NOT IN (SELECT owner_id FROM owners WHERE city = \"x\")",
		"SELECT (SELECT 1) FROM dogs JOIN breeds", "VALUES (1), (NULL)", "SELECT 1 UNION SELECT 'a' ORDER BY 1",
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	pgS := exampleSchema(f, catalog.Postgres)
	liteS := exampleSchema(f, catalog.SQLite)
	f.Fuzz(func(t *testing.T, sql string, lite bool) {
		s := pgS
		if lite {
			s = liteS
		}
		p, err := planner.Plan(context.Background(), s, sql, planner.Options{})
		if err == nil {
			_ = p.Fingerprint()
			_ = p.JSONTree()
		}
	})
}

// FuzzLoadDDL: no DDL may panic the catalog loader.
func FuzzLoadDDL(f *testing.F) {
	f.Add(catalog.ExampleDDL())
	f.Add("CREATE TABLE a (x int PRIMARY KEY, y int REFERENCES a); CREATE VIEW v AS SELECT * FROM a;")
	f.Add("CREATE TABLE a (x int, UNIQUE (z)); CREATE UNIQUE INDEX i ON a (x)")
	f.Fuzz(func(t *testing.T, ddl string) {
		for _, d := range []catalog.Dialect{catalog.Postgres, catalog.SQLite} {
			s, err := catalog.LoadDDL(ddl, d)
			if err == nil {
				_ = s.Fingerprint()
			}
		}
	})
}

// BenchmarkPlanSpider parses, plans and normalizes every Spider query.
// Each op is one query; median-ns/query is the per-query median.
func BenchmarkPlanSpider(b *testing.B) {
	pairs, schemas := loadSpider(b)
	var qs []struct {
		s   *catalog.Schema
		sql string
	}
	for _, p := range pairs {
		qs = append(qs, struct {
			s   *catalog.Schema
			sql string
		}{schemas[p.DB], p.Reference}, struct {
			s   *catalog.Schema
			sql string
		}{schemas[p.DB], p.Candidate})
	}
	durations := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := qs[i%len(qs)]
		start := time.Now()
		_, _ = planner.Plan(context.Background(), q.s, q.sql, planner.Options{})
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Nanoseconds()), "median-ns/query")
}
