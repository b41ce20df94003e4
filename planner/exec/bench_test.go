package exec_test

import (
	"context"
	"math/rand"
	"os"
	"testing"

	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/exec"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// BenchmarkExecuteSpider runs every plannable query of the shared Spider
// pairs, with SQLite's semantics, on four small generated databases of
// its schema each: the executor's share of a refutation search.
// ns/op is per query execution.
func BenchmarkExecuteSpider(b *testing.B) {
	shared := shareddata.Path(b, "data") + "/"
	pairs, err := dataset.ReadPairsFile(shared + "spider_pair_dev.jsonl")
	if err != nil {
		b.Fatalf("shared pairs: %v", err)
	}
	type job struct {
		p  *plan.Plan
		db exec.Database
	}
	schemas := map[string]*catalog.Schema{}
	dbs := map[string][]exec.Database{}
	rng := rand.New(rand.NewSource(1))
	seen := map[string]bool{}
	var jobs []job
	for _, p := range pairs {
		s, ok := schemas[p.DB]
		if !ok {
			ddl, err := os.ReadFile(shared + "schemas/" + p.DB + ".sql")
			if err != nil {
				b.Fatal(err)
			}
			if s, err = catalog.LoadDDL(string(ddl), catalog.SQLite); err != nil {
				b.Fatal(err)
			}
			schemas[p.DB] = s
			for i := 1; i <= 4; i++ { // instance 0 is nearly empty
				dbs[p.DB] = append(dbs[p.DB], exec.ForSQLite(generate(rng, s, i)))
			}
		}
		for _, q := range []string{p.Reference, p.Candidate} {
			if seen[q] {
				continue
			}
			seen[q] = true
			pl, err := planner.Plan(context.Background(), s, q, planner.Options{})
			if err != nil {
				continue
			}
			for _, db := range dbs[p.DB] {
				jobs = append(jobs, job{pl, db})
			}
		}
	}
	ctx := context.Background()
	opts := exec.Options{Dialect: catalog.SQLite}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := jobs[i%len(jobs)]
		_, _ = exec.ExecuteWith(ctx, j.p, j.db, opts)
	}
}
