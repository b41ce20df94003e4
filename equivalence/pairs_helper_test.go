package equivalence_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// The judge's own tests judge the shared pair files with these rather
// than with eval/evaluation, which sits a layer above the judge
// (docs/architecture.md).

// schemaDir loads <dir>/<db>.sql once per database and dialect.
type schemaDir struct {
	dir   string
	mu    sync.Mutex
	cache map[string]*catalog.Schema
}

func (s *schemaDir) get(db string, d catalog.Dialect) (*catalog.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := db + "/" + d.String()
	if sc, ok := s.cache[key]; ok {
		return sc, nil
	}
	ddl, err := os.ReadFile(filepath.Join(s.dir, db+".sql"))
	if err != nil {
		return nil, fmt.Errorf("schema of db %q: %w", db, err)
	}
	sc, err := catalog.LoadDDL(string(ddl), d)
	if err != nil {
		return nil, fmt.Errorf("schema of db %q: %w", db, err)
	}
	if s.cache == nil {
		s.cache = map[string]*catalog.Schema{}
	}
	s.cache[key] = sc
	return sc, nil
}

// judgedPair is a pair and the judge's verdict on it; err is set when the
// reference could not be planned.
type judgedPair struct {
	pair    dataset.Pair
	verdict equivalence.Verdict
	err     error
}

// judgePairs judges every pair on workers goroutines through one Judger;
// the results keep the pairs' order. A schema that does not load is an
// error.
func judgePairs(ctx context.Context, pairs []dataset.Pair, schemas *schemaDir, opts equivalence.Options, workers int) ([]judgedPair, error) {
	j, err := equivalence.NewJudger(equivalence.JudgerOptions{MaxEntries: 8 * workers, MaxPairs: -1})
	if err != nil {
		return nil, err
	}
	for _, p := range pairs { // load every schema first: errors are the test's
		d, err := catalog.ParseDialect(p.Dialect)
		if err != nil {
			return nil, err
		}
		if _, err := schemas.get(p.DB, d); err != nil {
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
				s, _ := schemas.get(p.DB, d)
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
