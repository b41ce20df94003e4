package prove_test

import (
	"context"
	"os"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence/prove"
	"github.com/pgequiv/pgequiv/internal/rulefile"
	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Each registered rule has its own file, testdata/<family>/<name>.txt,
// in the format of internal/rulefile: an expect case is proved both ways
// round, the proof names the rule, and the executor finds no difference
// on random databases; an expect-not case (a near miss) is not proved
// (so the rule does not fire) and the executor shows a difference.
//
// Flags: sqlite (plan, prove and execute under SQLite), as-given (only
// the proof with a as the reference must name the rule), unseen (the
// executor cannot show the difference: the comment says why), equal
// (expect-not only: the pair is equivalent but beyond the rule; the
// executor must find no difference).
var ruleFlags = []string{"sqlite", "as-given", "unseen", "equal"}

// ruleFile is one parsed testdata file, its cases as the prover's tests
// run them.
type ruleFile struct {
	ddl   string
	cases []ruleCase
}

// rules returns the prover's registry as the rule files see it.
func rules() []rulefile.Rule { return rulefile.Of(prove.Rules()) }

// readRuleFile reads the rule file at path, whose cases name rule.
func readRuleFile(t *testing.T, path, rule string) ruleFile {
	t.Helper()
	f, err := rulefile.Read(path, ruleFlags)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != rule {
		t.Fatalf("%s: the file's rule is %s, want %s", path, f.Name, rule)
	}
	return ruleCases(t, f)
}

// ruleCases reads the schema and cases of f.
func ruleCases(t *testing.T, f *rulefile.File) ruleFile {
	t.Helper()
	out := ruleFile{ddl: f.DDL}
	if f.Schema != "" {
		ddl, err := os.ReadFile(shareddata.Path(t, f.Schema))
		if err != nil {
			t.Fatal(err)
		}
		out.ddl = string(ddl)
	}
	for _, fc := range f.Cases {
		c := ruleCase{name: fc.Name, a: fc.A, b: fc.B, sqlite: fc.Has("sqlite"), ruleAsGiven: fc.Has("as-given")}
		if fc.Kind == rulefile.Expect {
			c.want, c.rule = true, fc.Rule
		} else {
			c.ruleNot = fc.Rule
		}
		if fc.Has("unseen") {
			c.unseen = "see the test file"
		}
		if fc.Has("equal") {
			c.unproved = "see the test file"
		}
		out.cases = append(out.cases, c)
	}
	return out
}

// TestRuleFiles runs each registered rule's file: at least one pair it
// proves naming the rule and one near miss, each checked by the executor.
func TestRuleFiles(t *testing.T) {
	rulefile.Run(t, "testdata", rules(), rulefile.Options{Flags: ruleFlags}, func(t *testing.T, f *rulefile.File) {
		rf := ruleCases(t, f)
		runRuleCases(t, rf.ddl, rf.cases)
	})
}

// TestRuleFilesRegistered: every file under testdata names a registered
// rule of its folder's family and repeats its fragment and conditions,
// every rule has its family and its file, and no two rules share a name.
func TestRuleFilesRegistered(t *testing.T) {
	for _, r := range prove.Rules() {
		if r.Family == "" {
			t.Errorf("rule %s: no family", r.Name)
		}
	}
	for _, err := range rulefile.CheckRegistry("testdata", rules()) {
		t.Error(err)
	}
}

// TestSuiteTracesNameRegisteredRules proves every pair of the shared
// suites (the prover suites and the Spider pairs): each entry of each
// proof's trace must name a registered rule.
func TestSuiteTracesNameRegisteredRules(t *testing.T) {
	n := 0
	for _, c := range soundnessCorpus {
		forEachProof(t, c.file, c.schemas, c.dialect, func(id string, rules []string) {
			n++
			for _, e := range rules {
				if _, ok := prove.LookupRule(prove.RuleName(e)); !ok {
					t.Errorf("%s %s: trace entry %q names no registered rule", c.file, id, e)
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no pair proved")
	}
}

// forEachProof proves each pair of the shared suite file (schemas in
// the shared folder schemas, under dialect d) and calls fn with the
// trace of each proof.
func forEachProof(t *testing.T, file, schemas string, d catalog.Dialect, fn func(id string, rules []string)) {
	t.Helper()
	ctx := context.Background()
	load := schemaLoader(t, shareddata.Path(t, "data/"+schemas), d)
	for _, p := range loadPairs(t, shareddata.Path(t, "data/"+file)) {
		s := load(p.DB)
		a, err1 := planner.Plan(ctx, s, p.Reference, planner.Options{})
		b, err2 := planner.Plan(ctx, s, p.Candidate, planner.Options{})
		if err1 != nil || err2 != nil {
			continue
		}
		r, err := prove.Equivalent(ctx, a, b, prove.Options{TrustForeignKeys: d == catalog.Postgres, SQLite: d == catalog.SQLite})
		if err != nil {
			t.Fatal(err)
		}
		if r.Proved {
			fn(p.ID, r.Rules)
		}
	}
}
