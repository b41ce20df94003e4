package rewrite_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence/rewrite"
	"github.com/pgequiv/pgequiv/internal/rulefile"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

var update = flag.Bool("update", false, "rewrite the plan blocks of the rule files")

// Each rule has its own file, testdata/<family>/<name>.txt, in the
// format of internal/rulefile. An expect case: the rule fires on a, and
// the plans of a and b after the rewrite print alike; the plan block is
// that plan, with the assumptions the rewrite of a rests on. An
// expect-not case (a near miss; its comment says why): the rule fires on
// neither query and their rewritten plans differ; the plan block is a's.
// TestRuleFilesOnPostgres runs both on PostgreSQL.
//
// Flags: sqlite (plan under SQLite, where foreign keys are not trusted;
// not run on PostgreSQL), untrusted (foreign keys are not trusted: a
// rule that needs one names it as an assumption).
var ruleFlags = []string{"sqlite", "untrusted"}

// rules returns the ESM+ registry as the rule files see it.
func rules() []rulefile.Rule { return rulefile.Of(rewrite.Rules()) }

// TestRuleFilesRegistered: every rule has a family and its file, whose
// header repeats its fragment and conditions, and every file under
// testdata names a registered rule of its folder's family.
func TestRuleFilesRegistered(t *testing.T) {
	for _, r := range rewrite.Rules() {
		if r.Family == "" || r.Apply == nil {
			t.Errorf("rule %s: a family and an Apply are needed", r.Name)
		}
		if got, ok := rewrite.LookupRule(r.Name); !ok || got.Name != r.Name {
			t.Errorf("LookupRule(%q) = %v, %v", r.Name, got.Name, ok)
		}
	}
	for _, err := range rulefile.CheckRegistry("testdata", rules()) {
		t.Error(err)
	}
}

// TestRuleFiles runs each rule's file.
func TestRuleFiles(t *testing.T) {
	rulefile.Run(t, "testdata", rules(), rulefile.Options{Flags: ruleFlags, Update: *update}, func(t *testing.T, f *rulefile.File) {
		schemas := map[catalog.Dialect]*catalog.Schema{}
		for i, c := range f.Cases {
			t.Run(c.Name, func(t *testing.T) {
				d := catalog.Postgres
				if c.Has("sqlite") {
					d = catalog.SQLite
				}
				s, ok := schemas[d]
				if !ok {
					var err error
					if s, err = catalog.LoadDDL(ddlOf(t, f), d); err != nil {
						t.Fatal(err)
					}
					schemas[d] = s
				}
				o := rewrite.Options{TrustForeignKeys: d == catalog.Postgres && !c.Has("untrusted")}
				a, err := rewritten(s, c.A, o)
				if err != nil {
					t.Fatal(err)
				}
				b, err := rewritten(s, c.B, o)
				if err != nil {
					t.Fatal(err)
				}
				checkCase(t, c, a, b)
				if err := f.CheckPlan(i, a.golden(), *update); err != nil {
					t.Error(err)
				}
			})
		}
	})
}

// ddlOf returns f's schema: its ddl block, or the file its schema block
// names (relative to the package).
func ddlOf(t *testing.T, f *rulefile.File) string {
	t.Helper()
	if f.Schema == "" {
		return f.DDL
	}
	ddl, err := os.ReadFile(f.Schema)
	if err != nil {
		t.Fatal(err)
	}
	return string(ddl)
}

// checkCase checks what the case's kind says of the rewrites of a and b.
func checkCase(t *testing.T, c rulefile.Case, a, b result) {
	t.Helper()
	same := a.tree() == b.tree()
	switch c.Kind {
	case rulefile.Expect:
		if !slices.Contains(a.fired, c.Rule) {
			t.Errorf("%s does not fire on a (fired %v)", c.Rule, a.fired)
		}
		if !same {
			t.Errorf("the rewritten plans differ:\na:\n%s\nb:\n%s", a.tree(), b.tree())
		}
	case rulefile.ExpectNot:
		if slices.Contains(a.fired, c.Rule) || slices.Contains(b.fired, c.Rule) {
			t.Errorf("%s fires (a: %v, b: %v)", c.Rule, a.fired, b.fired)
		}
		if same {
			t.Errorf("the rewritten plans print alike: no near miss\n%s", a.tree())
		}
	}
}

// result is a query's plan after the rewrite, the rules that fired and
// the assumptions they rest on.
type result struct {
	p       *plan.Plan
	fired   []string
	assumed []rewrite.Assumption
}

// rewritten plans q on s and rewrites its plan as the judge does.
func rewritten(s *catalog.Schema, q string, o rewrite.Options) (result, error) {
	ctx := context.Background()
	p, err := planner.Plan(ctx, s, q, planner.Options{})
	if err != nil {
		return result{}, fmt.Errorf("%s: %w", q, err)
	}
	r := result{p: p}
	fired := func(name string) {
		if !slices.Contains(r.fired, name) {
			r.fired = append(r.fired, name)
		}
	}
	assume := func(a rewrite.Assumption) { r.assumed = append(r.assumed, a) }
	if err := rewrite.Run(ctx, p, s, o, fired, assume); err != nil {
		return result{}, fmt.Errorf("%s: %w", q, err)
	}
	return r, nil
}

// tree prints the rewritten plan's operators, row order aside: the
// files' pairs compare as bags, as PostgreSQL's rows do.
func (r result) tree() string {
	return plan.NewFormatter(r.p.Meta, r.p.Root, false).Node(r.p.Root)
}

// golden is the plan block: the canonical plan and one line per
// assumption.
func (r result) golden() string {
	var b strings.Builder
	b.WriteString(r.p.Canonical())
	for _, a := range r.assumed {
		fmt.Fprintf(&b, "\nassumes %s: %s", a.Kind, a.Subject)
	}
	return b.String()
}
