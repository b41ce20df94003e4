package norm_test

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/pgequiv/pgequiv/internal/rulefile"
	"github.com/pgequiv/pgequiv/planner/norm"
)

var update = flag.Bool("update", false, "rewrite the plan blocks of the rule files (testdata/<family>/<rule>.txt)")

// registry is the normalizer's registry as the rule files' harness reads it.
func registry() []rulefile.Rule { return rulefile.Of(norm.Rules()) }

// TestRuleFiles runs each registered rule's file (internal/rulefile has
// the format) on the schema its schema block names: normalizing a fires
// the rule (expect) or does not (expect-not), the whole normalized plan
// is the case's plan block, and a b query normalizes to the same plan.
// internal/soundness's TestNormRuleFilesExecuted runs each a before and
// after normalization on generated databases, and each pair a, b on
// PostgreSQL.
func TestRuleFiles(t *testing.T) {
	s := testSchema(t)
	rulefile.Run(t, "testdata", registry(), rulefile.Options{Update: *update}, func(t *testing.T, f *rulefile.File) {
		if f.Schema == "" || filepath.Join("testdata", f.Schema) != schemaFile {
			t.Fatalf("%s: want the block \"schema %s\"", f.Path, filepath.Base(schemaFile))
		}
		for i, c := range f.Cases {
			p := normalized(t, s, c.A)
			if got, want := fired(p, c.Rule), c.Kind == rulefile.Expect; got != want {
				t.Errorf("%s: %s fired=%v, want %v (rules %v)\n%s", c.Name, c.Rule, got, want, p.Rules, p.Canonical())
			}
			if c.B != "" {
				if pb := normalized(t, s, c.B); pb.Fingerprint() != p.Fingerprint() {
					t.Errorf("%s: b normalizes to another plan:\n%s\n--- a:\n%s", c.Name, pb.Canonical(), p.Canonical())
				}
			}
			if err := f.CheckPlan(i, p.Canonical(), *update); err != nil {
				t.Error(err)
			}
		}
	})
}

// TestRuleFilesRegistered: every registered rule has its file, whose
// header repeats its fragment and conditions, and every file is a
// registered rule's.
func TestRuleFilesRegistered(t *testing.T) {
	for _, err := range rulefile.CheckRegistry("testdata", registry()) {
		t.Error(err)
	}
}
