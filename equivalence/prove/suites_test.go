package prove_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence/prove"
	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

type pair struct {
	ID        string `json:"id"`
	DB        string `json:"db"`
	Reference string `json:"reference"`
	Candidate string `json:"candidate"`
	Label     int    `json:"label"`
}

func loadPairs(t testing.TB, path string) []pair {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []pair
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var p pair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// loadCuratedCases reads the shared curated cases and their schema
// (PostgreSQL), failing the test where they are not present.
func loadCuratedCases(t *testing.T) (*dataset.CaseFile, *catalog.Schema) {
	t.Helper()
	cf, err := dataset.ReadCasesFile(shareddata.Path(t, "equivalence/cases.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := catalog.LoadDDL(cf.Schema, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	return cf, s
}

// schemaLoader returns a function that loads a database's schema from
// dir/<db>.sql under dialect d, once per database.
func schemaLoader(t testing.TB, dir string, d catalog.Dialect) func(db string) *catalog.Schema {
	loaded := map[string]*catalog.Schema{}
	return func(db string) *catalog.Schema {
		t.Helper()
		if s, ok := loaded[db]; ok {
			return s
		}
		ddl, err := os.ReadFile(filepath.Join(dir, db+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := catalog.LoadDDL(string(ddl), d)
		if err != nil {
			t.Fatal(err)
		}
		loaded[db] = s
		return s
	}
}

func loadSchema(t testing.TB, dir, db string) *catalog.Schema {
	t.Helper()
	ddl, err := os.ReadFile(filepath.Join(dir, db+".sql"))
	if err != nil {
		t.Fatal(err)
	}
	d := catalog.Postgres
	if os.Getenv("PROVE_SQLITE") != "" {
		d = catalog.SQLite
	}
	s, err := catalog.LoadDDL(string(ddl), d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDebugSuite prints, for PROVE_DEBUG=suite.jsonl, every pair the
// prover does not prove on the normalized plans.
func TestDebugSuite(t *testing.T) {
	path := os.Getenv("PROVE_DEBUG")
	if path == "" {
		t.Skip("set PROVE_DEBUG to a prover suite")
	}
	dir := filepath.Join(filepath.Dir(path), "schemas")
	ctx := context.Background()
	n, proved := 0, 0
	for _, p := range loadPairs(t, path) {
		if only := os.Getenv("PROVE_ID"); only != "" && only != p.ID {
			continue
		}
		s := loadSchema(t, dir, p.DB)
		a, err := planner.Plan(ctx, s, p.Reference, planner.Options{})
		if err != nil {
			t.Logf("%s: reference: %v", p.ID, err)
			continue
		}
		b, err := planner.Plan(ctx, s, p.Candidate, planner.Options{})
		if err != nil {
			t.Logf("%s: candidate: %v", p.ID, err)
			continue
		}
		n++
		opts := prove.Options{TrustForeignKeys: true}
		if os.Getenv("PROVE_ID") != "" {
			opts.Debug = func(f string, a ...any) { t.Logf(f, a...) }
		}
		r, err := prove.Equivalent(ctx, a, b, opts)
		if err != nil {
			t.Fatal(err)
		}
		if r.Proved {
			proved++
			if os.Getenv("PROVE_ID") != "" {
				t.Logf("%s proved: %s", p.ID, strings.Join(r.Rules, "; "))
			}
			continue
		}
		t.Logf("%s NOT proved\n  A: %s\n  B: %s", p.ID, fmtPlan(a), fmtPlan(b))
	}
	t.Logf("proved %d/%d", proved, n)
}

func fmtPlan(p *plan.Plan) string {
	return strings.ReplaceAll(plan.NewFormatter(p.Meta, p.Root, false).Node(p.Root), "\n", "\n     ")
}
