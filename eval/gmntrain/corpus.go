// Package gmntrain trains and evaluates the graph matching network on
// labelled SQL pairs: it plans every query, builds program graphs
// (gmn/plangraph), derives synthetic pairs from plan rewrites, splits the
// data into db-grouped cross-validation folds, and runs contrastive
// pre-training followed by supervised pair training.
package gmntrain

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/pgequiv/pgequiv/gmn"
	"github.com/pgequiv/pgequiv/gmn/plangraph"
	"github.com/pgequiv/pgequiv/internal/dataset"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// ErrNoData is returned when a split or a corpus has nothing to train on.
var ErrNoData = errors.New("pipeline: no usable pairs")

// Query is one planned query and its program graph.
type Query struct {
	DB   string
	SQL  string
	Plan *plan.Plan
	Prog *plangraph.Program
}

// Item is a labelled pair of programs.
type Item struct {
	A, B  *plangraph.Program
	Label float64
	DB    string
	// Kind names where the pair comes from: "real", or the synthetic
	// rewrite that produced B from A.
	Kind string
	// ID is the dataset row id of a real pair.
	ID string
}

// Example returns the gmn training example of it.
func (it Item) Example() gmn.Example {
	return gmn.Example{A: it.A.G, B: it.B.G, Seeds: plangraph.Seeds(it.A, it.B), Label: it.Label}
}

// Corpus is a labelled dataset with every query planned.
type Corpus struct {
	// Items are the real pairs that planned on both sides, in file order.
	Items []Item
	// Queries are the distinct planned queries, in order of first
	// appearance.
	Queries []*Query
	// Skipped counts pairs dropped because a side did not plan.
	Skipped int
}

// LoadCorpus reads the pairs file and plans each query against
// schemasDir/<db>.sql in the pair's dialect (SQLite when absent).
func LoadCorpus(ctx context.Context, pairsFile, schemasDir string) (*Corpus, error) {
	pairs, err := dataset.ReadPairsFile(pairsFile)
	if err != nil {
		return nil, err
	}
	return Plan(ctx, pairs, func(db string) (string, error) {
		b, err := os.ReadFile(filepath.Join(schemasDir, db+".sql"))
		return string(b), err
	})
}

// Plan plans the given pairs, reading each db's DDL through ddl.
func Plan(ctx context.Context, pairs []dataset.Pair, ddl func(db string) (string, error)) (*Corpus, error) {
	schemas := map[string]*catalog.Schema{}
	byKey := map[string]*Query{}
	failed := map[string]bool{}
	c := &Corpus{}
	query := func(db string, d catalog.Dialect, sql string) (*Query, error) {
		key := db + "\x00" + d.String() + "\x00" + sql
		if q := byKey[key]; q != nil || failed[key] {
			return q, nil
		}
		skey := db + "/" + d.String()
		s := schemas[skey]
		if s == nil {
			text, err := ddl(db)
			if err != nil {
				return nil, fmt.Errorf("schema %s: %w", db, err)
			}
			if s, err = catalog.LoadDDL(text, d); err != nil {
				return nil, fmt.Errorf("schema %s: %w", db, err)
			}
			schemas[skey] = s
		}
		p, err := planner.Plan(ctx, s, sql, planner.Options{})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			failed[key] = true
			return nil, nil
		}
		prog, err := plangraph.BuildProgram(p)
		if err != nil {
			failed[key] = true
			return nil, nil
		}
		q := &Query{DB: db, SQL: sql, Plan: p, Prog: prog}
		byKey[key] = q
		c.Queries = append(c.Queries, q)
		return q, nil
	}
	for _, pr := range pairs {
		d := catalog.SQLite
		if pr.Dialect != "" {
			var err error
			if d, err = catalog.ParseDialect(pr.Dialect); err != nil {
				return nil, fmt.Errorf("pair %s: %w", pr.ID, err)
			}
		}
		a, err := query(pr.DB, d, pr.Reference)
		if err != nil {
			return nil, err
		}
		b, err := query(pr.DB, d, pr.Candidate)
		if err != nil {
			return nil, err
		}
		if a == nil || b == nil {
			c.Skipped++
			continue
		}
		c.Items = append(c.Items, Item{A: a.Prog, B: b.Prog, Label: float64(pr.Label), DB: pr.DB, Kind: "real", ID: pr.ID})
	}
	if len(c.Items) == 0 {
		return nil, ErrNoData
	}
	return c, nil
}

// DBs returns the distinct databases of the corpus, sorted.
func (c *Corpus) DBs() []string {
	var dbs []string
	for _, it := range c.Items {
		if !slices.Contains(dbs, it.DB) {
			dbs = append(dbs, it.DB)
		}
	}
	slices.Sort(dbs)
	return dbs
}

// Folds assigns each database to one of k folds, balancing the number of
// pairs (see DBFolds).
func (c *Corpus) Folds(k int) (map[string]int, error) {
	dbs := make([]string, len(c.Items))
	for i, it := range c.Items {
		dbs[i] = it.DB
	}
	return DBFolds(dbs, k)
}

// DBFolds assigns each database to one of k folds given the database of
// every pair, balancing the number of pairs: databases in decreasing
// order of pair count (ties by name) go to the fold with the fewest pairs
// so far (ties to the lowest index). The result does not depend on any
// seed, so `pgequiv train --cv` and `pgequiv eval --folds` agree.
func DBFolds(pairDBs []string, k int) (map[string]int, error) {
	n := map[string]int{}
	for _, db := range pairDBs {
		n[db]++
	}
	dbs := make([]string, 0, len(n))
	for db := range n {
		dbs = append(dbs, db)
	}
	slices.Sort(dbs)
	if k < 2 || k > len(dbs) {
		return nil, fmt.Errorf("pipeline: %d folds over %d databases", k, len(dbs))
	}
	slices.SortStableFunc(dbs, func(a, b string) int { return n[b] - n[a] })
	size := make([]int, k)
	fold := map[string]int{}
	for _, db := range dbs {
		f := 0
		for i := range size {
			if size[i] < size[f] {
				f = i
			}
		}
		fold[db] = f
		size[f] += n[db]
	}
	return fold, nil
}

// Split returns the items and queries of databases in fold f (test) and of
// the others (train).
func (c *Corpus) Split(fold map[string]int, f int) (train, test []Item, trainQ []*Query) {
	for _, it := range c.Items {
		if fold[it.DB] == f {
			test = append(test, it)
		} else {
			train = append(train, it)
		}
	}
	for _, q := range c.Queries {
		if fold[q.DB] != f {
			trainQ = append(trainQ, q)
		}
	}
	return train, test, trainQ
}
