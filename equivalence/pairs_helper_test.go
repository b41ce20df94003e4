package equivalence_test

import (
	"context"
	"sync"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// The judge's own tests judge the shared pair files with these rather
// than with eval/evaluation, which sits a layer above the judge
// (docs/architecture.md).

// judgedPair is a pair and the judge's verdict on it; err is set when the
// reference could not be planned.
type judgedPair struct {
	pair    dataset.Pair
	verdict equivalence.Verdict
	err     error
}

// schemaSource serves a database's schema: the flattened schemas/
// directory (dataset.SchemaDir) or the real Spider databases' DDL.
type schemaSource interface {
	Get(db string, d catalog.Dialect) (*catalog.Schema, error)
}

// judgePairs judges every pair on workers goroutines through one Judger;
// the results keep the pairs' order. A schema that does not load is an
// error.
func judgePairs(ctx context.Context, pairs []dataset.Pair, schemas schemaSource, opts equivalence.Options, workers int) ([]judgedPair, error) {
	j, err := equivalence.NewJudger(equivalence.JudgerOptions{MaxEntries: 8 * workers, MaxPairs: -1})
	if err != nil {
		return nil, err
	}
	for _, p := range pairs { // load every schema first: errors are the test's
		d, err := catalog.ParseDialect(p.Dialect)
		if err != nil {
			return nil, err
		}
		if _, err := schemas.Get(p.DB, d); err != nil {
			return nil, err
		}
	}
	out := make([]judgedPair, len(pairs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p := pairs[i]
				d, _ := catalog.ParseDialect(p.Dialect)
				s, _ := schemas.Get(p.DB, d)
				out[i].pair = p
				out[i].verdict, out[i].err = j.Judge(ctx, s, p.Reference, p.Candidate, opts)
			}
		}()
	}
	for i := range pairs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return out, ctx.Err()
}
