package equivalence

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/equivalence/rewrite"
	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/internal/soundness"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// ruleRenormalize names the normalization the judge runs between rounds
// of ESM+ rules, checked as one step.
const ruleRenormalize = "(normalization between rule rounds)"

// firing is one rewrite the judge made, with the plan before and after.
type firing struct {
	rule          string
	before, after *plan.Plan
}

// recordFirings runs judge with opts watched by hooks that capture every
// ESM+ rule firing (and every normalization between rounds) of the plans
// the judge prepares; rules, when not nil, replace the rule set. Every
// firing is also checked for cyclic definitions: a rule that leaves one
// fails at once, naming itself, instead of overflowing the stack later.
func recordFirings(opts Options, rules []rewrite.Rule, judge func(Options)) []firing {
	var out []firing
	last := map[*plan.Plan]*plan.Plan{}
	lastRule := map[*plan.Plan]bool{}
	hooks := &rewrite.Options{Rules: rules}
	hooks.BeforeRound = func(p *plan.Plan) {
		now := p.Clone()
		if prev, ok := last[p]; ok && lastRule[p] {
			out = append(out, firing{rule: ruleRenormalize, before: prev, after: now})
		}
		last[p], lastRule[p] = now, false
	}
	hooks.AfterRule = func(p *plan.Plan, rule string) {
		if err := plan.CheckDefinitions(p); err != nil {
			panic(fmt.Sprintf("rule %s left a cyclic definition: %v", rule, err))
		}
		now := p.Clone()
		out = append(out, firing{rule: rule, before: last[p], after: now})
		last[p], lastRule[p] = now, true
	}
	opts.rewriteHooks = hooks
	judge(opts)
	return out
}

// firingSchema is the schema a rule firing was made under: the judge
// tries a SQLite pair again under its primary keys declared NOT NULL
// (pknotnull.go), and a firing there assumed what that schema says, so
// it is checked on the databases that schema allows.
func firingSchema(s *catalog.Schema, p *plan.Plan) *catalog.Schema {
	assumed, _ := pkNotNullSchema(s)
	if assumed == nil {
		return s
	}
	for _, in := range p.Meta.Instances {
		for _, t := range assumed.Tables {
			if in.Table == t {
				return assumed
			}
		}
	}
	return s
}

// TestSoundnessNet is the soundness net for the judge: over every pair of
// the shared corpora (curated cases, prover suites, Spider dev pairs) it
// checks, on generated databases,
//   - every ESM+ rule firing (and every normalization between rounds):
//     the plans before and after return the same result, on databases
//     satisfying what the rule assumed;
//   - every pair the judge proves equivalent: both queries return the
//     same result, on databases satisfying the verdict's assumptions.
//
// A difference is a bug in a rule, a prover or the executor.
// SOUNDNESS_INSTANCES sets the databases per check (default 16 in go test;
// scripts/soundness.sh runs hundreds). Normalization rules are stepped
// one firing at a time in planner/norm's TestRuleFiringsAgree.
func TestSoundnessNet(t *testing.T) {
	start := time.Now()
	n := soundness.Instances(16)
	pairs, err := soundness.Load(shareddata.Path(t, "."))
	if err != nil {
		t.Fatalf("shared corpora: %v", err)
	}
	ctx := context.Background()
	rules := map[string]*firingStat{}
	seen := map[string]bool{}
	reasons := map[string]int{}
	var proved, provedCannot, provedBugs, provedVacuous, unplanned, judged int
	for _, p := range pairs {
		opts := Options{Refute: RefuteOptions{Off: true}}
		for k, v := range p.Policy {
			if err := opts.SetPolicy(k, v); err != nil {
				t.Fatal(err)
			}
		}
		trust := p.Schema.Dialect == catalog.Postgres
		if opts.TrustForeignKeys != nil {
			trust = *opts.TrustForeignKeys
		}
		var v Verdict
		var jerr error
		fs := recordFirings(opts, nil, func(o Options) { v, jerr = Judge(ctx, p.Schema, p.Reference, p.Candidate, o) })
		if jerr != nil {
			unplanned++
			continue
		}
		judged++
		for _, f := range fs {
			key := f.rule + "\x00" + f.before.Explain() + "\x00" + f.after.Explain()
			if seen[key] {
				continue
			}
			seen[key] = true
			st := rules[f.rule]
			if st == nil {
				st = &firingStat{}
				rules[f.rule] = st
			}
			st.checked++
			ro := refute.Options{TrustForeignKeys: trust || f.rule == RuleFKJoinElimination, Dialect: p.Schema.Dialect, Seed: 17}
			res, err := refute.Agree(ctx, firingSchema(p.Schema, f.before), f.before, f.after, n, ro, firingAssumption(f))
			if err != nil {
				t.Fatal(err)
			}
			st.dbs += res.Instances
			switch {
			case res.CannotExecute && soundness.Malformed(res.Reason):
				st.bugs++
				t.Errorf("rule %s left a broken plan (%s/%s): %s\nbefore:\n%s\nafter:\n%s", f.rule, p.Corpus, p.ID, res.Reason, f.before.Explain(), f.after.Explain())
			case res.CannotExecute:
				st.cannot++
				reasons[reasonClass(res.Reason)]++
			case res.Instances == 0:
				st.vacuous++
				t.Logf("rule %s (%s/%s): no generated database satisfies what it assumed; not checked\nafter:\n%s", f.rule, p.Corpus, p.ID, f.after.Explain())
			case res.Counterexample != nil:
				st.bugs++
				t.Errorf("rule %s changed a plan's result (%s/%s):\n%s\nbefore:\n%s\nafter:\n%s", f.rule, p.Corpus, p.ID, res.Counterexample, f.before.Explain(), f.after.Explain())
			}
		}
		if v.Label != Equivalent && v.Label != EquivalentUnderAssumptions {
			continue
		}
		proved++
		// A proof under primary_key_not_null holds on the databases whose
		// keys hold no NULL: the schema that declares them NOT NULL.
		ps := p.Schema
		for _, a := range v.Assumptions {
			if a.Kind == AssumePrimaryKeyNotNull {
				ps, _ = pkNotNullSchema(p.Schema)
			}
		}
		ref, err1 := planner.Plan(ctx, ps, p.Reference, planner.Options{})
		cand, err2 := planner.Plan(ctx, ps, p.Candidate, planner.Options{})
		if err1 != nil || err2 != nil {
			t.Fatalf("%s/%s: proved equivalent but does not plan: %v %v", p.Corpus, p.ID, err1, err2)
		}
		ro := refute.Options{TrustForeignKeys: trust, Dialect: p.Schema.Dialect, Seed: 23, IgnoreColumnOrder: opts.ColumnOrder == ColumnOrderIgnore}
		keep, fk := verdictAssumptions(v.Assumptions)
		ro.TrustForeignKeys = ro.TrustForeignKeys || fk
		res, err := refute.Agree(ctx, ps, ref, cand, n, ro, keep)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case res.CannotExecute && soundness.Malformed(res.Reason):
			provedBugs++
			t.Errorf("%s/%s proved %s but a plan is broken: %s", p.Corpus, p.ID, v.Label, res.Reason)
		case res.CannotExecute:
			provedCannot++
			reasons[reasonClass(res.Reason)]++
		case res.Instances == 0:
			provedVacuous++
			t.Logf("%s/%s proved under %v: no generated database satisfies the assumptions (its rule firings are checked above)", p.Corpus, p.ID, v.Assumptions)
		case res.Counterexample != nil:
			provedBugs++
			t.Errorf("%s/%s proved %s but differs:\n  %s\n  %s\nassumptions %v\n%s", p.Corpus, p.ID, v.Label, oneLine(p.Reference), oneLine(p.Candidate), v.Assumptions, res.Counterexample)
		}
	}
	table, firings, cannot := firingSummary(rules, reasons)
	t.Logf("%d pairs judged (%d did not plan); %d distinct ESM+ firings checked (%d cannot execute); %d pairs proved equivalent checked (%d cannot execute, %d on no database, %d differ); %d databases per check; %v\n%s",
		judged, unplanned, firings, cannot, proved, provedCannot, provedVacuous, provedBugs, n, time.Since(start).Round(time.Millisecond), table)
}

// firingStat counts the soundness net's checks of one rule's firings.
type firingStat struct{ checked, cannot, bugs, dbs, vacuous int }

// firingSummary is the soundness net's table of rules and of the reasons
// the executor could not run a check, with the firings checked and those
// that could not be.
func firingSummary(rules map[string]*firingStat, reasons map[string]int) (table string, firings, cannot int) {
	var names []string
	for r, s := range rules {
		names = append(names, r)
		firings += s.checked
		cannot += s.cannot
	}
	sort.Strings(names)
	var b strings.Builder
	for _, r := range names {
		s := rules[r]
		fmt.Fprintf(&b, "  %-42s %5d firings, %4d cannot execute, %d on no database, %d differ; %d databases compared\n", r, s.checked, s.cannot, s.vacuous, s.bugs, s.dbs)
	}
	for r, k := range reasons {
		fmt.Fprintf(&b, "  cannot execute %4d× %s\n", k, r)
	}
	return b.String(), firings, cannot
}

// firingAssumption narrows the databases a firing is checked on to those
// where what the rule assumed holds: order-limit-to-max assumes its input
// is not empty (the input of the MIN/MAX aggregate it built).
func firingAssumption(f firing) func(exec.Database) bool {
	if f.rule != RuleOrderLimitToMax {
		return nil
	}
	fresh := plan.ColumnID(len(f.before.Meta.Columns))
	var input *plan.Node
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		n.WalkNodes(func(x *plan.Node) {
			if x.Op == plan.OpAggregate && len(x.GroupBy) == 0 && len(x.Aggs) == 1 && x.Aggs[0].ID == fresh {
				input = x.Inputs[0]
			}
			x.WalkExprs(func(e *plan.Expr) {
				plan.Walk(e, func(y *plan.Expr) {
					if y.Kind == plan.Subquery {
						walk(y.Sub)
					}
				})
			})
		})
	}
	walk(f.after.Root)
	if input == nil {
		return func(exec.Database) bool { return false } // not found: check nothing rather than guess
	}
	sub := &plan.Plan{Root: input, Meta: f.after.Meta, Names: make([]string, len(input.OutCols()))}
	return func(db exec.Database) bool {
		r, err := exec.Execute(context.Background(), sub, db)
		return err == nil && len(r.Rows) > 0
	}
}

// verdictAssumptions turns a verdict's assumptions into a filter on
// databases, and says whether foreign keys must hold.
func verdictAssumptions(as []Assumption) (func(exec.Database) bool, bool) {
	var nonEmpty []string
	fk := false
	for _, a := range as {
		switch a.Kind {
		case AssumeForeignKey:
			fk = true
		case AssumeNonEmpty:
			nonEmpty = append(nonEmpty, a.Subject)
		}
	}
	if len(nonEmpty) == 0 {
		return nil, fk
	}
	return func(db exec.Database) bool {
		for _, t := range nonEmpty {
			rows, ok := db[t]
			if !ok {
				return false // a relation, not a table: no database is known to satisfy it
			}
			if len(rows) == 0 {
				return false
			}
		}
		return true
	}, fk
}

// reasonClass shortens an executor's cannot-execute reason to its kind.
func reasonClass(r string) string {
	if len(r) > 90 {
		r = r[:90]
	}
	return r
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestSoundnessRegressions holds the ESM+ bugs the soundness net found:
// every plan the judge makes on the way to its verdict must run, and
// each firing must keep the result.
func TestSoundnessRegressions(t *testing.T) {
	const ddl = `CREATE TABLE country (code text PRIMARY KEY, name text);
CREATE TABLE countrylanguage (countrycode text REFERENCES country(code), language text);`
	cases := []struct {
		name, ref, cand string
		dialect         catalog.Dialect
		mustNotFire     string
	}{
		{
			// fk-join-elimination removed a parent whose non-key column an
			// INTERSECT above still read: it looked at expressions and
			// grouping lists, not at set operations' inputs (Spider
			// world_1).
			name:    "fk-elimination-under-intersect",
			dialect: catalog.SQLite,
			ref: `SELECT count(*) FROM (SELECT t1.name FROM country t1 JOIN countrylanguage t3 ON t1.code = t3.countrycode WHERE t3.language = 'English'
			      INTERSECT SELECT t2.name FROM country t2 JOIN countrylanguage t4 ON t2.code = t4.countrycode WHERE t4.language = 'Dutch') x`,
			cand: `SELECT count(*) FROM (SELECT t1.name FROM country t1 JOIN countrylanguage t3 ON t1.code = t3.countrycode WHERE t3.language = 'English'
			      INTERSECT SELECT t2.name FROM countrylanguage t4 JOIN country t2 ON t2.code = t4.countrycode WHERE t4.language = 'Dutch') x`,
			mustNotFire: RuleFKJoinElimination,
		},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := catalog.LoadDDL(ddl, tc.dialect)
			if err != nil {
				t.Fatal(err)
			}
			trust := true
			var v Verdict
			fs := recordFirings(Options{TrustForeignKeys: &trust, Refute: RefuteOptions{Off: true}}, nil, func(o Options) {
				v, err = Judge(ctx, s, tc.ref, tc.cand, o)
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fs {
				if f.rule == tc.mustNotFire {
					t.Errorf("rule %s fired:\nbefore:\n%s\nafter:\n%s", f.rule, f.before.Explain(), f.after.Explain())
				}
				res, err := refute.Agree(ctx, s, f.before, f.after, soundness.Instances(100), refute.Options{TrustForeignKeys: true, Dialect: tc.dialect, Seed: 1}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if res.CannotExecute || res.Counterexample != nil || res.Instances == 0 {
					t.Errorf("rule %s: %s %v\nbefore:\n%s\nafter:\n%s", f.rule, res.Reason, res.Counterexample, f.before.Explain(), f.after.Explain())
				}
			}
			if v.Label != Equivalent {
				t.Errorf("verdict %s, want equivalent (the join order differs only)", v.Summary())
			}
		})
	}
}

// TestSoundnessNetCatchesAnUnsoundRule: the net is only worth its green
// if it fails on a wrong rule. An ESM+ rule that drops a filter's last
// conjunct is added for the test; the firing check must show a database
// where the plans before and after it differ.
func TestSoundnessNetCatchesAnUnsoundRule(t *testing.T) {
	rules := append(rewrite.Rules(), rewrite.Rule{Name: "drop-a-conjunct", Apply: func(_ *rewrite.Ctx, slot **plan.Node) bool {
		n := *slot
		if n.Op != plan.OpFilter || len(n.Preds) == 0 {
			return false
		}
		n.Preds = n.Preds[:len(n.Preds)-1]
		return true
	}})
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	fs := recordFirings(Options{Refute: RefuteOptions{Off: true}}, rules, func(o Options) {
		_, err = Judge(ctx, s, "SELECT name FROM dogs WHERE age > 3", "SELECT name FROM dogs", o)
	})
	if err != nil {
		t.Fatal(err)
	}
	caught := false
	for _, f := range fs {
		if f.rule != "drop-a-conjunct" {
			continue
		}
		res, err := refute.Agree(ctx, s, f.before, f.after, soundness.Instances(8), refute.Options{TrustForeignKeys: true, Seed: 17}, nil)
		if err != nil {
			t.Fatal(err)
		}
		caught = caught || res.Counterexample != nil
	}
	if !caught {
		t.Errorf("the unsound rule went unnoticed (%d firings recorded)", len(fs))
	}
}
