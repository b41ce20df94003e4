package norm_test

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
// 6 in go test; scripts/soundness.sh runs hundreds).
func TestRuleFiringsAgree(t *testing.T) {
	start := time.Now()
	n := soundness.Instances(6)
	queries := goldenQueries(t)
	pairs, err := soundness.Load("../../../shared")
	if err != nil {
		t.Fatalf("shared corpora: %v", err)
	}
	queries = append(queries, soundness.Queries(pairs)...)
	type stat struct{ firings, cannot, compared int }
	stats := map[string]*stat{}
	var checked, unplanned, capped, bugs int
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
			case st.CannotExecute:
				s.cannot++
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
	t.Logf("%d queries stepped (%d not planned, %d with over %d firings checked whole); %d rule firings checked on %d databases each, %d cannot execute, %d differences, in %v\n%s",
		checked, unplanned, capped, maxStepFirings, firings, n, cannot, bugs, time.Since(start).Round(time.Millisecond), b.String())
}

// goldenQueries are the queries of planner/testdata/plans.txt, each made
// to exercise a rule, on the example schema.
func goldenQueries(t *testing.T) []soundness.Query {
	f, err := os.Open("../testdata/plans.txt")
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
