package judgepool_test

import (
	"context"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/proxy/judgepool"
)

// BenchmarkIsolationCost measures what isolation costs per verdict with a
// warm cache: the same pair judged in-process (Local) and through a pool
// of worker processes, side by side in one run; the pool's ns/op over
// the in-process one is the cost of crossing the process boundary.
//
//	go test -run '^$' -bench IsolationCost -count 5 ./proxy/judgepool
func BenchmarkIsolationCost(b *testing.B) {
	s := exampleSchema(b)
	local, err := judgepool.NewLocal(judgepool.LocalOptions{})
	if err != nil {
		b.Fatal(err)
	}
	pool := newPool(b, judgepool.Options{Workers: 1})
	for _, c := range []struct {
		name string
		j    judgepool.Backend
	}{{"in-process", local}, {"pool", pool}} {
		b.Run(c.name, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			if _, err := c.j.Judge(ctx, s, ref, cand, equivalence.Options{}); err != nil { // warm the cache
				b.Fatal(err)
			}
			for b.Loop() {
				v, err := c.j.Judge(ctx, s, ref, cand, equivalence.Options{})
				if err != nil || v.Label != equivalence.Equivalent {
					b.Fatal(v.Label, err)
				}
			}
		})
	}
}
