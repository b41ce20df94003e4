package soundness_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence/refute"
	"github.com/pgequiv/pgequiv/internal/rulefile"
	"github.com/pgequiv/pgequiv/internal/soundness"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/norm"
)

// normRuleRoot holds the normalizer's rule files; planner/norm's
// TestRuleFiles checks what each case's normalization fires and prints.
const normRuleRoot = "../../planner/norm/testdata"

// pgDatabases is how many of a case's generated databases
// TestNormRuleFilesOnPostgres loads into PostgreSQL.
const pgDatabases = 3

// normRuleCase is one case of a rule file, as run here.
type normRuleCase struct {
	name string // <family>/<rule>/<case>
	a, b string
	// dbs are the largest of the generated databases a ran on, for
	// PostgreSQL (the first ones are small).
	dbs []exec.Database
}

// runNormRuleFiles runs the a query of every case of the normalizer's
// rule files before and after normalization on generated databases (the
// soundness net's check of a rewrite): the two plans must agree on each.
// It returns the schema's DDL and the cases with a b query, with the
// databases they ran on.
func runNormRuleFiles(t *testing.T) (ddl string, withB []normRuleCase) {
	t.Helper()
	extra, err := os.ReadFile(filepath.Join(normRuleRoot, "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	// The files' "schema schema.sql": the example schema, then that file.
	ddl = catalog.ExampleDDL() + string(extra)
	s, err := catalog.LoadDDL(ddl, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	n := soundness.Instances(60)
	opts := refute.Options{TrustForeignKeys: true, Dialect: catalog.Postgres, Seed: 11}
	rulefile.Run(t, normRuleRoot, rulefile.Of(norm.Rules()), rulefile.Options{}, func(t *testing.T, f *rulefile.File) {
		for _, c := range f.Cases {
			raw, err := planner.Plan(ctx, s, c.A, planner.Options{SkipNormalize: true})
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			normalized, err := norm.Normalize(raw.Clone())
			if err != nil {
				t.Fatalf("%s: normalize: %v", c.Name, err)
			}
			rc := normRuleCase{name: t.Name() + "/" + c.Name, a: c.A, b: c.B}
			keep := func(db exec.Database) bool {
				rc.dbs = append(rc.dbs, db)
				return true
			}
			ag, err := refute.Agree(ctx, s, raw, normalized, n, opts, keep)
			switch {
			case err != nil:
				t.Fatalf("%s: %v", c.Name, err)
			case ag.CannotExecute && soundness.Malformed(ag.Reason):
				t.Errorf("%s: normalization left a broken plan: %s\n%s", c.Name, ag.Reason, normalized.Explain())
			case ag.CannotExecute:
				t.Logf("%s: %s", c.Name, ag.Reason)
			case ag.Counterexample != nil:
				t.Errorf("%s: normalization changed the result:\n%s\nbefore:\n%s\nafter:\n%s", c.Name, ag.Counterexample, raw.Explain(), normalized.Explain())
			case ag.Instances == 0:
				t.Errorf("%s: no database ran", c.Name)
			}
			if c.B != "" {
				rc.dbs = largest(rc.dbs, pgDatabases)
				withB = append(withB, rc)
			}
		}
	})
	return ddl, withB
}

// largest returns the k databases of dbs with the most rows, stably.
func largest(dbs []exec.Database, k int) []exec.Database {
	size := func(db exec.Database) int {
		n := 0
		for _, rows := range db {
			n += len(rows)
		}
		return n
	}
	slices.SortStableFunc(dbs, func(a, b exec.Database) int { return size(b) - size(a) })
	return dbs[:min(k, len(dbs))]
}

// TestNormRuleFilesExecuted: normalization keeps the result of every
// case of the normalizer's rule files on generated databases.
func TestNormRuleFilesExecuted(t *testing.T) {
	runNormRuleFiles(t)
}
