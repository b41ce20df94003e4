package prove_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence/prove"
	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// BenchmarkProveSpider times the prover alone on every Spider pair both
// of whose queries plan, and reports the median and the slowest pair:
//
//	go test ./equivalence/prove -run '^$' -bench ProveSpider -benchtime 3x
func BenchmarkProveSpider(b *testing.B) {
	ctx := context.Background()
	pairs := loadPairs(b, shareddata.Path(b, "data/spider_pair_dev.jsonl"))
	type planned struct{ a, b *plan.Plan }
	var ps []planned
	schemas := schemaLoader(b, shareddata.Path(b, "data/schemas"), catalog.SQLite)
	for _, p := range pairs {
		s := schemas(p.DB)
		x, err1 := planner.Plan(ctx, s, p.Reference, planner.Options{})
		y, err2 := planner.Plan(ctx, s, p.Candidate, planner.Options{})
		if err1 == nil && err2 == nil {
			ps = append(ps, planned{x, y})
		}
	}
	times := make([]time.Duration, len(ps))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, p := range ps {
			t := time.Now()
			if _, err := prove.Equivalent(ctx, p.a, p.b, prove.Options{}); err != nil {
				b.Fatal(err)
			}
			if d := time.Since(t); i == 0 || d < times[j] {
				times[j] = d
			}
		}
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds()), "median-µs/pair")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds()), "p99-µs/pair")
	b.ReportMetric(float64(times[len(times)-1].Microseconds()), "max-µs/pair")
}
