package planner_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/internal/sqlgen"
	"github.com/pgequiv/pgequiv/planner"
)

// FuzzPlanStructured plans queries that internal/sqlgen builds from the
// fuzz input over the bundled and shared schemas, so mutations change the
// structure of the query (nesting, list lengths, set operations, CTEs)
// rather than its characters. It fails on a panic, on a call that
// overruns its 200 ms budget by more than 10% + 20 ms, and on more than
// 256 MB of heap growth during the call (sqlgen.Limits explains the bound).
// Errors from the planner are fine: not every generated query is valid.
// Run it with scripts/fuzz.sh.
func FuzzPlanStructured(f *testing.F) { fuzzPlanStructured(f, sqlgen.FuzzConfig) }

// FuzzPlanStructuredParams is FuzzPlanStructured with parameters ($n)
// among the literals.
func FuzzPlanStructuredParams(f *testing.F) {
	cfg := sqlgen.FuzzConfig
	cfg.Params = 3
	fuzzPlanStructured(f, cfg)
}

func fuzzPlanStructured(f *testing.F, cfg sqlgen.Config) {
	schemas, err := sqlgen.LoadSchemas(shareddata.Path(f, "data/schemas"))
	if err != nil {
		f.Fatal(err)
	}
	// One seed per shape, small; each plans within budget today.
	for _, seed := range sqlgen.Seeds() {
		f.Add(seed.Schema, seed.Data)
	}
	lim := sqlgen.FuzzLimits
	f.Fuzz(func(t *testing.T, schema uint8, data []byte) {
		ns := schemas[int(schema)%len(schemas)]
		q := sqlgen.New(ns.Schema, sqlgen.NewByteSource(data), cfg).Query()
		u := lim.MeasureSettled(context.Background(), func(ctx context.Context) {
			p, err := planner.Plan(ctx, ns.Schema, q, planner.Options{})
			if err == nil {
				_ = p.Fingerprint()
			}
		})
		if err := lim.Check(u); err != nil {
			msg := fmt.Sprintf("schema %s: %v\nquery (%d bytes): %s", ns.Name, err, len(q), sqlgen.Clip(q))
			if u.Hung {
				// The abandoned call still runs; ending the worker process
				// keeps it from slowing every input that follows.
				panic(msg)
			}
			t.Fatal(msg)
		}
	})
}
