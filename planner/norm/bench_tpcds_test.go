package norm_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/norm"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// BenchmarkNormalizeTPCDS normalizes TPC-DS queries, read from
// $TPCDS_DIR as scripts/bench-tpcds.sh lays them out (the queries are
// under the TPC's EULA and not in this repository; without the variable
// the benchmark is skipped). TPCDS_QUERIES names the files' numbers,
// comma-separated (default 14, 23, 4, 64, 47: the slowest to plan); each
// statement of a file is normalized, its plan built anew each time.
//
//	TPCDS_DIR=/path/to/tpcds go test ./planner/norm -run '^$' -bench NormalizeTPCDS
func BenchmarkNormalizeTPCDS(b *testing.B) {
	dir := os.Getenv("TPCDS_DIR")
	if dir == "" {
		b.Skip("set TPCDS_DIR (docs/bench-tpcds.md)")
	}
	ddl, err := os.ReadFile(filepath.Join(dir, "schema.sql"))
	if err != nil {
		b.Fatal(err)
	}
	s, err := catalog.LoadDDL(string(ddl), catalog.Postgres)
	if err != nil {
		b.Fatal(err)
	}
	qs := os.Getenv("TPCDS_QUERIES")
	if qs == "" {
		qs = "14,23,4,64,47"
	}
	var stmts []string
	for _, n := range strings.Split(qs, ",") {
		text, err := os.ReadFile(filepath.Join(dir, "query"+strings.TrimSpace(n)+".sql"))
		if err != nil {
			b.Fatal(err)
		}
		sts, err := pg.SplitWithParser(string(text), true)
		if err != nil {
			b.Fatal(err)
		}
		stmts = append(stmts, sts...)
	}
	ctx := context.Background()
	build := func() []*plan.Plan {
		ps := make([]*plan.Plan, len(stmts))
		for i, q := range stmts {
			p, err := planner.Plan(ctx, s, q, planner.Options{SkipNormalize: true})
			if err != nil {
				b.Fatalf("%s: %v", q, err)
			}
			ps[i] = p
		}
		return ps
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ps := build()
		b.StartTimer()
		for _, p := range ps {
			if _, err := norm.Normalize(p); err != nil {
				b.Fatal(err)
			}
		}
	}
}
