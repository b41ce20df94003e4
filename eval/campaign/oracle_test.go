package campaign

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// One PostgreSQL cluster serves every test of the package.
var (
	clusterOnce sync.Once
	cluster     *pgtest.Cluster
	clusterErr  error
)

func pgConnString(t *testing.T) string {
	t.Helper()
	clusterOnce.Do(func() { cluster, clusterErr = pgtest.Start(pgtest.Options{}) })
	if clusterErr != nil {
		t.Fatalf("pgtest: %v", clusterErr)
	}
	return cluster.ConnString(pgtest.SuperUser, "")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if cluster != nil {
		_ = cluster.Stop()
	}
	os.Exit(code)
}

// openCorpus opens the corpus's schemas on an engine, by name (for
// SQLite, the sqlitefile.Load targets).
func openCorpus(t *testing.T, eng string) map[string]*target {
	t.Helper()
	opts := Options{Engine: eng}
	if eng == "postgres" {
		opts.PGConn = pgConnString(t)
	} else {
		opts.WorkDir = t.TempDir()
	}
	st := &Stats{}
	ts, err := openTargets(context.Background(), opts, st)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*target{}
	for _, tg := range ts {
		if tg.schema == nil {
			continue
		}
		if _, ok := out[tg.name]; !ok || tg.loader == "sqlitefile.Load" {
			out[tg.name] = tg
		}
	}
	t.Cleanup(func() {
		done := map[engine]bool{}
		for _, tg := range ts {
			if !done[tg.eng] {
				done[tg.eng] = true
				tg.eng.close()
			}
		}
	})
	return out
}

// TestOracleJudgesLabels checks the oracle itself on real engines, with
// labels written by hand rather than by the judge: a false `equivalent`
// and a false `not_equivalent` (an illegal or a non-distinguishing
// counterexample) are caught, and true ones are not reported.
func TestOracleJudgesLabels(t *testing.T) {
	ctx := context.Background()
	type tc struct {
		name, engine, schema, ref, cand string
		label                           equivalence.Label
		inserts                         []string // the counterexample of a not_equivalent label
		wantKind, wantClass             string   // "" when no finding is wanted
		class                           string
	}
	cases := []tc{
		{name: "from-only-is-not-from", engine: "postgres", schema: "ledger", ref: "SELECT id FROM event", cand: "SELECT id FROM ONLY event",
			label: equivalence.Equivalent, wantKind: "wrong equivalent", class: "6", wantClass: "6"},
		{name: "commuted-comparison", engine: "postgres", schema: "ledger", ref: "SELECT id FROM event WHERE id > 1", cand: "SELECT id FROM event WHERE 1 < id",
			label: equivalence.Equivalent, class: "other"},
		{name: "real-literal", engine: "postgres", schema: "types", ref: "SELECT id FROM val WHERE r = 0.1", cand: "SELECT id FROM val WHERE r = 0.1::real",
			label: equivalence.Equivalent, wantKind: "wrong equivalent", class: "10", wantClass: "10"},
		{name: "check-violating-counterexample", engine: "postgres", schema: "shop", ref: "SELECT id FROM item WHERE qty > 0", cand: "SELECT id FROM item",
			label: equivalence.NotEquivalent, inserts: []string{"INSERT INTO item (id, sku, qty) VALUES (1, 'a', -1);"}, wantKind: "illegal counterexample", wantClass: "1", class: "1"},
		{name: "generated-column-written", engine: "postgres", schema: "shop", ref: "SELECT id FROM item", cand: "SELECT id FROM item WHERE total > 0",
			label: equivalence.NotEquivalent, inserts: []string{"INSERT INTO item (id, sku, qty, price, total) VALUES (1, 'a', 1, 1, 5);"}, wantKind: "illegal counterexample", wantClass: "4", class: "4"},
		{name: "counterexample-without-difference", engine: "postgres", schema: "shop", ref: "SELECT id FROM item WHERE qty > 0", cand: "SELECT id FROM item",
			label: equivalence.NotEquivalent, inserts: []string{"INSERT INTO item (id, sku, qty) VALUES (1, 'a', 2);"}, wantKind: "wrong not_equivalent", wantClass: "1", class: "1"},
		{name: "true-counterexample", engine: "postgres", schema: "shop", ref: "SELECT id FROM item WHERE qty > 1", cand: "SELECT id FROM item",
			label: equivalence.NotEquivalent, inserts: []string{"INSERT INTO item (id, sku, qty) VALUES (1, 'a', 1);"}, class: "other"},
		{name: "integer-affinity-holds-reals", engine: "sqlite", schema: "metrics", ref: "SELECT id FROM reading WHERE val > 5", cand: "SELECT id FROM reading WHERE val >= 6",
			label: equivalence.Equivalent, wantKind: "wrong equivalent", class: "17", wantClass: "17"},
		{name: "sqlite-commuted", engine: "sqlite", schema: "metrics", ref: "SELECT id FROM reading WHERE val > 5", cand: "SELECT id FROM reading WHERE 5 < val",
			label: equivalence.Equivalent, class: "other"},
		{name: "sqlite-check-violating", engine: "sqlite", schema: "shop", ref: "SELECT id FROM item WHERE qty > 0", cand: "SELECT id FROM item",
			label: equivalence.NotEquivalent, inserts: []string{"INSERT INTO item (id, sku, qty) VALUES (1, 'a', 0);"}, wantKind: "illegal counterexample", wantClass: "1", class: "1"},
		{name: "sqlite-rejects-candidate", engine: "sqlite", schema: "shop", ref: "SELECT id FROM item UNION SELECT id FROM item", cand: "(SELECT id FROM item) UNION SELECT id FROM item",
			label: equivalence.Equivalent, wantKind: "wrong equivalent", class: "other", wantClass: "18"},
	}
	targets := map[string]map[string]*target{"postgres": openCorpus(t, "postgres"), "sqlite": openCorpus(t, "sqlite")}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tg := targets[c.engine][c.schema]
			p := Pair{Schema: c.schema, Engine: c.engine, Reference: c.ref, Candidate: c.cand, Family: "hand", Mutation: "hand/" + c.name, Class: c.class}
			v := equivalence.Verdict{Label: c.label}
			if c.inserts != nil {
				v.Counterexample = &equivalence.Counterexample{Inserts: c.inserts}
			}
			st := &Stats{Illegal: map[string]int{}, IllegalExample: map[string]string{}}
			base := Finding{Engine: c.engine, Pair: p}
			var found []Finding
			if c.label == equivalence.NotEquivalent {
				found = checkNotEquivalent(ctx, tg, p, v, base, st)
			} else {
				found = checkEquivalent(ctx, tg, p, v, base, 24, 3, rand.New(rand.NewPCG(3, 4)), st)
			}
			if c.wantKind == "" {
				if len(found) > 0 {
					t.Fatalf("a true %s label reported: %+v", c.label, found[0])
				}
				if c.label != equivalence.NotEquivalent && st.StatesChecked < 24 {
					t.Fatalf("only %d databases checked", st.StatesChecked)
				}
				return
			}
			if len(found) != 1 || found[0].Kind != c.wantKind || found[0].Class != c.wantClass {
				t.Fatalf("want one %s finding of cause %s, got %+v", c.wantKind, c.wantClass, found)
			}
			t.Logf("%s: %s; database %s; %s vs %s", found[0].Kind, found[0].Why, strings.Join(found[0].Database, " "), found[0].RefResult, found[0].CandResult)
		})
	}
}

// TestCompareResults pins how results compare: ties under ORDER BY,
// rows cut by a LIMIT, display-only differences, column types, errors.
func TestCompareResults(t *testing.T) {
	row := func(vs ...string) []cell {
		out := make([]cell, len(vs))
		for i, v := range vs {
			out[i] = cell{"'" + v + "'", pgLoose(v)}
		}
		return out
	}
	res := func(rows ...[]cell) result { return result{rows: rows} }
	fail := result{err: errors.New("ERROR: smallint out of range")}
	cases := []struct {
		name      string
		p         Pair
		ref, cand result
		want      outcome
	}{
		{"bag", Pair{}, res(row("1"), row("2")), res(row("2"), row("1")), same},
		{"bag-differs", Pair{}, res(row("1"), row("1")), res(row("1")), differ},
		{"scale", Pair{}, res(row("1.0")), res(row("1.00")), display},
		{"float-digits", Pair{}, res(row("0.1")), res(row("0.10000000149011612")), differ},
		{"order", Pair{Ordered: true}, res(row("1"), row("2")), res(row("2"), row("1")), differ},
		{"order-ties", Pair{Ordered: true}, res(row("a"), row("A"), row("b")), res(row("A"), row("a"), row("b")), same},
		{"limit-cut-among-ties", Pair{Ordered: true, Limit: true},
			result{rows: [][]cell{row("a")}, full: &result{rows: [][]cell{row("a"), row("A")}}}, res(row("A")), same},
		{"limit-cut-not-among-ties", Pair{Ordered: true, Limit: true},
			result{rows: [][]cell{row("ab  ")}, full: &result{rows: [][]cell{row("ab  ")}}}, res(row("ab")), differ},
		{"types", Pair{}, result{rows: [][]cell{row("0")}, types: []string{"23"}}, result{rows: [][]cell{row("0")}, types: []string{"25"}}, display},
		{"one-fails", Pair{}, res(row("1")), fail, differ},
		{"both-fail", Pair{}, fail, fail, skip},
		{"side-effects", Pair{Modifies: true}, result{digest: "t=1"}, result{digest: "t=0"}, differ},
	}
	for _, c := range cases {
		if got, why := compareResults(c.p, c.ref, c.cand); got != c.want {
			t.Errorf("%s: got %v (%s), want %v", c.name, got, why, c.want)
		}
	}
}

// TestPairsDeterministic: a seed names the same pairs forever, and the
// generator reaches every family on the corpus.
func TestPairsDeterministic(t *testing.T) {
	tgs := openCorpus(t, "sqlite")
	tg := tgs["shop"]
	gen := func() []Pair {
		g := newGen(tg.meta, tg.eng.dialect(), rand.New(rand.NewPCG(9, 9)))
		var ps []Pair
		for i := 0; i < 300; i++ {
			ps = append(ps, g.pair())
		}
		return ps
	}
	a, b := gen(), gen()
	fams := map[string]bool{}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("pair %d differs between two runs of one seed:\n%+v\n%+v", i, a[i], b[i])
		}
		fams[a[i].Family] = true
	}
	if len(fams) < 15 {
		t.Errorf("only %d families reached in 300 pairs: %v", len(fams), fams)
	}
}

// TestGeneratedQueriesRun: the generator writes queries the engine runs
// (a campaign of queries the engine refuses would check nothing).
func TestGeneratedQueriesRun(t *testing.T) {
	ctx := context.Background()
	for _, eng := range []string{"postgres", "sqlite"} {
		for name, tg := range openCorpus(t, eng) {
			r := rand.New(rand.NewPCG(5, 5))
			g := newGen(tg.meta, tg.eng.dialect(), r)
			bad, n := 0, 100
			var examples []string
			for i := 0; i < n; i++ {
				p := g.pair()
				if p.Family == "dialect" || p.Family == "modifying" && eng == "sqlite" {
					continue
				}
				if err := tg.eng.begin(ctx, ""); err != nil {
					t.Fatal(err)
				}
				if res := tg.eng.query(ctx, p.Reference, p.Volatile, false); res.err != nil {
					bad++
					examples = append(examples, p.Reference+": "+res.err.Error())
				}
				_ = tg.eng.rollback(ctx)
			}
			if bad > n/10 {
				t.Errorf("%s/%s: the engine refuses %d of %d references, e.g. %v", eng, name, bad, n, examples[:min(3, len(examples))])
			}
		}
	}
}

// TestIntervalLoose: intervals compare as PostgreSQL's = does.
func TestIntervalLoose(t *testing.T) {
	same := [][]string{{"1 mon", "30 days", "720:00:00"}, {"1 day 01:00:00", "25:00:00"}, {"-1 days", "-24:00:00"}, {"1 year", "12 mons", "360 days"}, {"00:00:00.5", "00:00:00.5"}}
	for _, g := range same {
		for _, v := range g[1:] {
			if intervalLoose(v) != intervalLoose(g[0]) {
				t.Errorf("%q and %q: %s vs %s", g[0], v, intervalLoose(g[0]), intervalLoose(v))
			}
		}
	}
	if intervalLoose("1 mon") == intervalLoose("31 days") || intervalLoose("1 day") == intervalLoose("1 day 00:00:01") {
		t.Error("unequal intervals compare equal")
	}
}
