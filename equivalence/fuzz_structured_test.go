package equivalence_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/sqlgen"
)

// FuzzJudgeStructured judges query pairs that internal/sqlgen builds from
// the fuzz input: a query and an identical, rewritten, perturbed or
// unrelated candidate, over the bundled and shared schemas. It fails on a
// panic, on a judgement that overruns its 200 ms budget by more than
// 10% + 20 ms, on more than 256 MB of heap growth during the call
// (sqlgen.Limits explains the bound), and on a score outside [0,1].
// Errors are fine: the reference need not plan. Run it with
// scripts/fuzz.sh.
func FuzzJudgeStructured(f *testing.F) {
	schemas, err := sqlgen.LoadSchemas(sharedDir + "/data/schemas")
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range judgeSeeds {
		f.Add(seed.schema, seed.data)
	}
	lim := sqlgen.FuzzLimits
	f.Fuzz(func(t *testing.T, schema uint8, data []byte) {
		ns := schemas[int(schema)%len(schemas)]
		p := sqlgen.New(ns.Schema, sqlgen.NewByteSource(data), sqlgen.FuzzConfig).Pair()
		var v equivalence.Verdict
		var jerr error
		u := lim.Measure(context.Background(), func(ctx context.Context) {
			v, jerr = equivalence.Judge(ctx, ns.Schema, p.Reference, p.Candidate, equivalence.Options{})
		})
		if err := lim.Check(u); err != nil {
			msg := fmt.Sprintf("schema %s, shape %s, rewrite %s: %v\nreference (%d bytes): %s\ncandidate (%d bytes): %s",
				ns.Name, p.Shape, p.Rewrite, err, len(p.Reference), sqlgen.Clip(p.Reference), len(p.Candidate), sqlgen.Clip(p.Candidate))
			if u.Hung {
				// The abandoned call still runs; ending the worker process
				// keeps it from slowing every input that follows.
				panic(msg)
			}
			t.Fatal(msg)
		}
		if jerr != nil {
			return
		}
		if v.Score < 0 || v.Score > 1 {
			t.Fatalf("score %v out of [0,1] for %s / %s", v.Score, sqlgen.Clip(p.Reference), sqlgen.Clip(p.Candidate))
		}
	})
}

type judgeSeed struct {
	schema uint8
	data   []byte
}

// judgeSeeds cover every shape with small sizes, each judged within
// budget on today's code. Left out until the issue 9 fixes merge, because
// they crash today (blowup_regress_test.go has them): ORDER BY ... DESC
// LIMIT 1 over a derived table that the judge rewrites to MAX (a cyclic
// column definition, stack overflow).
var judgeSeeds = []judgeSeed{
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
