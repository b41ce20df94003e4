package equivalence_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/shareddata"
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
func FuzzJudgeStructured(f *testing.F) { fuzzJudgeStructured(f, sqlgen.FuzzConfig) }

// FuzzJudgeStructuredParams is FuzzJudgeStructured with parameters ($n)
// among the literals: the refuter then chooses their values too.
func FuzzJudgeStructuredParams(f *testing.F) {
	cfg := sqlgen.FuzzConfig
	cfg.Params = 3
	fuzzJudgeStructured(f, cfg)
}

func fuzzJudgeStructured(f *testing.F, cfg sqlgen.Config) {
	schemas, err := sqlgen.LoadSchemas(shareddata.Path(f, "data/schemas"))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range sqlgen.Seeds() {
		f.Add(seed.Schema, seed.Data)
	}
	lim := sqlgen.FuzzLimits
	f.Fuzz(func(t *testing.T, schema uint8, data []byte) {
		ns := schemas[int(schema)%len(schemas)]
		p := sqlgen.New(ns.Schema, sqlgen.NewByteSource(data), cfg).Pair()
		var v equivalence.Verdict
		var jerr error
		u := lim.MeasureSettled(context.Background(), func(ctx context.Context) {
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
