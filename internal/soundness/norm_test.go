package soundness_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/internal/soundness"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/norm"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// maxStepFirings bounds the firings stepped through per query: stepping
// costs a normalization per firing, so the few queries with hundreds of
// firings are checked whole (raw plan against normalized) past it.
const maxStepFirings = 60

// TestRuleFiringsAgree is the soundness net for normalization: every
// query of the golden file and the shared corpora is normalized one rule
// firing at a time, and every plan in that chain runs on the same
// generated databases; the plans before and after a firing must return
// the same result on each. A difference is a bug in the rule (or the
// executor). SOUNDNESS_INSTANCES sets the databases per query (default
// 12 in go test; scripts/soundness.sh runs hundreds).
func TestRuleFiringsAgree(t *testing.T) {
	start := time.Now()
	n := soundness.Instances(12)
	queries := goldenQueries(t)
	pairs, err := soundness.Load(shareddata.Path(t, "."))
	if err != nil {
		t.Fatalf("shared corpora: %v", err)
	}
	queries = append(queries, soundness.Queries(pairs)...)
	type stat struct{ firings, cannot, compared int }
	stats := map[string]*stat{}
	var checked, unplanned, capped, bugs int
	reasons := map[string]int{}
	ctx := context.Background()
	for _, q := range queries {
		raw, err := planner.Plan(ctx, q.Schema, q.SQL, planner.Options{SkipNormalize: true})
		if err != nil {
			unplanned++
			continue
		}
		pctx, probe := norm.WithFiringLimit(ctx, 0)
		if _, err := norm.NormalizeContext(pctx, raw.Clone()); err != nil {
			unplanned++
			continue
		}
		total, _ := probe()
		plans, rules := []*plan.Plan{raw}, []string{}
		if total > maxStepFirings {
			capped++
			full, _ := norm.Normalize(raw.Clone())
			plans, rules = append(plans, full), append(rules, "(whole normalization)")
		} else {
			for k := 1; k <= total; k++ {
				kctx, probe := norm.WithFiringLimit(ctx, k)
				p, err := norm.NormalizeContext(kctx, raw.Clone())
				if err != nil {
					t.Fatalf("%s/%s: normalize to firing %d: %v", q.Corpus, q.ID, k, err)
				}
				_, last := probe()
				plans, rules = append(plans, p), append(rules, last)
			}
		}
		if len(plans) < 2 {
			continue
		}
		checked++
		opts := refute.Options{TrustForeignKeys: q.Schema.Dialect == catalog.Postgres, Dialect: q.Schema.Dialect, Seed: 11}
		steps, err := refute.Chain(ctx, q.Schema, plans, n, opts, nil)
		if err != nil {
			t.Fatalf("%s/%s: %v", q.Corpus, q.ID, err)
		}
		for i, st := range steps {
			s := stats[rules[i]]
			if s == nil {
				s = &stat{}
				stats[rules[i]] = s
			}
			s.firings++
			switch {
			case st.CannotExecute && soundness.Malformed(st.Reason):
				// The chain marks both steps around a broken plan: the
				// first is the firing that broke it.
				if i == 0 || !soundness.Malformed(steps[i-1].Reason) {
					bugs++
					t.Errorf("rule %s (firing %d) left a broken plan for %s/%s: %s\n%s\nbefore:\n%s\nafter:\n%s", rules[i], i+1, q.Corpus, q.ID, st.Reason,
						oneLine(q.SQL), plans[i].Explain(), plans[i+1].Explain())
				}
			case st.CannotExecute:
				s.cannot++
				reasons[st.Reason]++
			case st.Counterexample != nil:
				bugs++
				s.compared++
				t.Errorf("rule %s (firing %d) changed the result of %s/%s:\n%s\n%s\nbefore:\n%s\nafter:\n%s", rules[i], i+1, q.Corpus, q.ID,
					oneLine(q.SQL), st.Counterexample, plans[i].Explain(), plans[i+1].Explain())
			default:
				s.compared++
			}
		}
	}
	var names []string
	firings, cannot := 0, 0
	for r, s := range stats {
		names = append(names, r)
		firings += s.firings
		cannot += s.cannot
	}
	sort.Strings(names)
	var b strings.Builder
	for _, r := range names {
		fmt.Fprintf(&b, "  %-28s %6d firings, %5d cannot execute\n", r, stats[r].firings, stats[r].cannot)
	}
	for r, k := range reasons {
		fmt.Fprintf(&b, "  cannot execute %5d× %s\n", k, r)
	}
	t.Logf("%d queries stepped (%d not planned, %d with over %d firings checked whole); %d rule firings checked on %d databases each, %d cannot execute, %d differences, in %v\n%s",
		checked, unplanned, capped, maxStepFirings, firings, n, cannot, bugs, time.Since(start).Round(time.Millisecond), b.String())
}

// goldenQueries are the queries of planner/testdata/plans.txt, each made
// to exercise a rule, on the example schema.
func goldenQueries(t *testing.T) []soundness.Query {
	f, err := os.Open("../../planner/testdata/plans.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	schemas := map[catalog.Dialect]*catalog.Schema{}
	var qs []soundness.Query
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "":
		case strings.HasPrefix(line, "=== "):
			d := catalog.Postgres
			if strings.Contains(line, "dialect=sqlite") {
				d = catalog.SQLite
			}
			if schemas[d] == nil {
				// The golden schema's view (planner_test.go's testViews).
				if schemas[d], err = catalog.LoadDDL(catalog.ExampleDDL()+goldenViews, d); err != nil {
					t.Fatal(err)
				}
			}
			qs = append(qs, soundness.Query{Corpus: "golden", ID: strings.Fields(line)[1], Schema: schemas[d]})
		default:
			qs[len(qs)-1].SQL += line + "\n"
		}
	}
	return qs
}

const goldenViews = `CREATE VIEW old_dogs AS SELECT dog_id, name, weight FROM dogs WHERE age > 10;`

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestSoundnessRegressions holds the bugs the soundness net found, each
// reduced to a query whose normalized plan must run and agree with its
// raw plan.
func TestSoundnessRegressions(t *testing.T) {
	cases := []struct {
		name, ddl string
		dialect   catalog.Dialect
		sql       string
	}{
		{
			// substitute-join-equivalent-columns grouped a correlated
			// subquery by the outer column its filter equates with the
			// grouping column: a column the aggregate's input lacks
			// (TPC-H Q18 in the prover suites).
			name:    "group-by-outer-equivalent",
			ddl:     `CREATE TABLE lineitem (l_orderkey integer, l_quantity numeric);`,
			dialect: catalog.Postgres,
			sql: `SELECT l_orderkey FROM lineitem t3 WHERE EXISTS (SELECT 1 FROM (SELECT l_orderkey, sum(l_quantity) AS s FROM lineitem GROUP BY l_orderkey) AS t11
			      WHERE s > 3 AND t3.l_orderkey = t11.l_orderkey)`,
		},
		{
			// reduce-group-by-by-fd replaced the dropped grouping column
			// past the projection that passes it through, so the
			// INTERSECT above read a column that projection does not
			// output (Spider car_1).
			name: "reduce-group-by-under-set-operation",
			ddl: `CREATE TABLE car_makers (id integer PRIMARY KEY, maker text);
			      CREATE TABLE model_list (modelid integer PRIMARY KEY, maker integer REFERENCES car_makers(id), model text);`,
			dialect: catalog.SQLite,
			sql: `SELECT * FROM (SELECT t.id, t.maker FROM (SELECT id, maker FROM car_makers) AS t JOIN (SELECT maker FROM model_list) AS m ON t.id = m.maker
			      GROUP BY t.id, t.maker HAVING count(*) >= 2 INTERSECT SELECT id, maker FROM car_makers)`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := catalog.LoadDDL(tc.ddl, tc.dialect)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			raw, err := planner.Plan(ctx, s, tc.sql, planner.Options{SkipNormalize: true})
			if err != nil {
				t.Fatal(err)
			}
			// Every plan on the way, one firing at a time: a broken plan a
			// later rule happens to repair still misleads the rules between.
			plans := []*plan.Plan{raw}
			pctx, probe := norm.WithFiringLimit(ctx, 0)
			if _, err := norm.NormalizeContext(pctx, raw.Clone()); err != nil {
				t.Fatal(err)
			}
			total, _ := probe()
			for k := 1; k <= total; k++ {
				kctx, _ := norm.WithFiringLimit(ctx, k)
				p, err := norm.NormalizeContext(kctx, raw.Clone())
				if err != nil {
					t.Fatal(err)
				}
				plans = append(plans, p)
			}
			steps, err := refute.Chain(ctx, s, plans, soundness.Instances(100), refute.Options{Dialect: tc.dialect, Seed: 1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, st := range steps {
				if st.CannotExecute || st.Counterexample != nil || st.Instances == 0 {
					t.Errorf("firing %d (rules %v): %s %v\nbefore:\n%s\nafter:\n%s", i+1, plans[i+1].Rules, st.Reason, st.Counterexample, plans[i].Explain(), plans[i+1].Explain())
				}
			}
		})
	}
}
