package equivalence

import (
	"context"
	"fmt"

	"github.com/pgequiv/pgequiv/cache"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Judger judges pairs like Judge and keeps prepared references in a
// bounded LRU, so a reference judged against many candidates (the proxy's
// case) is planned and rewritten once. It is safe for concurrent use.
type Judger struct {
	refs *refCache
}

// JudgerOptions bound the reference cache.
type JudgerOptions struct {
	MaxEntries int   // 0: 4096
	MaxBytes   int64 // approximate; 0: 64 MiB
}

// NewJudger returns a Judger with an empty cache.
func NewJudger(o JudgerOptions) (*Judger, error) {
	if o.MaxEntries == 0 {
		o.MaxEntries = 4096
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = 64 << 20
	}
	c, err := cache.New[cache.PlanKey, *prepared](cache.Options[cache.PlanKey, *prepared]{
		MaxEntries: o.MaxEntries,
		MaxBytes:   o.MaxBytes,
		SizeFunc:   func(_ cache.PlanKey, p *prepared) int64 { return p.approxBytes() },
	})
	if err != nil {
		return nil, fmt.Errorf("equivalence: reference cache: %w", err)
	}
	return &Judger{refs: &refCache{c: c}}, nil
}

// Judge is Judge with the reference taken from, or added to, the cache.
func (j *Judger) Judge(ctx context.Context, s *catalog.Schema, reference, candidate string, opts Options) (Verdict, error) {
	return judge(ctx, s, reference, candidate, opts, j.refs)
}

// CacheStats reports the reference cache's counters.
func (j *Judger) CacheStats() cache.Stats { return j.refs.c.Stats() }

type refCache struct {
	c *cache.Cache[cache.PlanKey, *prepared]
}

// key identifies a prepared reference: the schema, the dialect, and the
// reference text with the options that change how it is prepared.
func (r *refCache) key(s *catalog.Schema, sql string, o Options) cache.PlanKey {
	trust := "default"
	if o.TrustForeignKeys != nil {
		trust = fmt.Sprint(*o.TrustForeignKeys)
	}
	return cache.PlanKey{
		Schema:  cache.FingerprintOf([]byte(s.Fingerprint())),
		Dialect: s.Dialect.String(),
		Plan:    cache.FingerprintOf([]byte(o.ColumnOrder + "\x00" + trust + "\x00" + fmt.Sprint(o.GMN != nil) + "\x00" + sql)),
	}
}

func (r *refCache) get(s *catalog.Schema, sql string, o Options) *prepared {
	p, _ := r.c.Get(r.key(s, sql, o))
	return p
}

func (r *refCache) add(s *catalog.Schema, sql string, o Options, p *prepared) {
	r.c.Add(r.key(s, sql, o), p)
}

// approxBytes estimates the memory a prepared query holds; plans of
// tens of nodes take a few kilobytes per node and expression.
func (p *prepared) approxBytes() int64 {
	nodes := 0
	p.p.Root.WalkNodes(func(_ *plan.Node) { nodes++ })
	return int64(4096 + 2048*nodes + 256*len(p.p.Meta.Columns))
}
