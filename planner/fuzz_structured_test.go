package planner_test

import (
	"context"
	"fmt"
	"testing"

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
func FuzzPlanStructured(f *testing.F) {
	schemas, err := sqlgen.LoadSchemas("../../shared/data/schemas")
	if err != nil {
		f.Fatal(err)
	}
	// One seed per shape, small; each plans within budget today.
	for _, seed := range structuredSeeds {
		f.Add(seed.schema, seed.data)
	}
	lim := sqlgen.FuzzLimits
	f.Fuzz(func(t *testing.T, schema uint8, data []byte) {
		ns := schemas[int(schema)%len(schemas)]
		q := sqlgen.New(ns.Schema, sqlgen.NewByteSource(data), sqlgen.FuzzConfig).Query()
		u := lim.Measure(context.Background(), func(ctx context.Context) {
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

type structuredSeed struct {
	schema uint8
	data   []byte
}

// structuredSeeds cover every shape on the example schema (index 0) and
// a few on car_1 (index 2 in name order after the example).
var structuredSeeds = []structuredSeed{
	{0, sqlgen.SeedBytes(sqlgen.ShapePlain, 3, 1, 2, 4, 5, 1)},
	{0, sqlgen.SeedBytes(sqlgen.ShapeGroupBy, 1, 2, 3, 40, 2)},
	{0, sqlgen.SeedBytes(sqlgen.ShapeJoins, 2, 1, 3, 4, 5)},
	{0, sqlgen.SeedBytes(sqlgen.ShapeNestedScalar, 3, 2)},
	{0, sqlgen.SeedBytes(sqlgen.ShapeNestedExists, 3, 2)},
	{0, sqlgen.SeedBytes(sqlgen.ShapeNestedIn, 3, 2)},
	{0, sqlgen.SeedBytes(sqlgen.ShapeSetOps, 3, 5, 1)},
	{0, sqlgen.SeedBytes(sqlgen.ShapeCTEFanout, 2, 2)},
	{0, sqlgen.SeedBytes(sqlgen.ShapeLongIn, 1, 4, 6)},
	{0, sqlgen.SeedBytes(sqlgen.ShapeBoolChain, 1, 4, 6)},
	{0, sqlgen.SeedBytes(sqlgen.ShapeRowIn, 1, 4, 6)},
	{0, sqlgen.SeedBytes(sqlgen.ShapeOrderLimit, 2, 1)},
	{0, sqlgen.SeedBytes(sqlgen.ShapeValues, 1, 2, 3)},
	{0, sqlgen.SeedBytes(sqlgen.ShapeNestedDistinct, 1, 2, 3)},
	{2, sqlgen.SeedBytes(sqlgen.ShapeOrderLimit, 2, 3, 1)},
	{2, sqlgen.SeedBytes(sqlgen.ShapeSetOps, 2, 2, 1)},
	{2, sqlgen.SeedBytes(sqlgen.ShapePlain, 5, 3, 2, 1)},
}
