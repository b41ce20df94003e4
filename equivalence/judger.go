package equivalence

import (
	"context"
	"fmt"

	"github.com/pgequiv/pgequiv/cache"
	"github.com/pgequiv/pgequiv/equivalence/score"
	"github.com/pgequiv/pgequiv/gmn"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/planner/plan"
)

// Judger judges pairs like Judge and keeps per-query artifacts in bounded
// LRUs, so a query judged again (a reference against many candidates, the
// proxy's case, or a candidate the application sends repeatedly) is
// planned, rewritten and encoded once. It is safe for concurrent use.
//
// Two caches:
//   - queries: each side's prepared query (normalized and ESM+-rewritten
//     plan, comparison structures, and with Options.GMN the program graph
//     and its standalone node embeddings), keyed by schema fingerprint,
//     dialect and the query text with the options that change preparation;
//   - pairs: the GMN similarity of two cached queries, the one
//     pair-dependent part of a verdict that costs more than the rule
//     comparison (cross-graph attention cannot be computed per query).
//
// Every verdict is still derived afresh from the two prepared queries:
// the rules and scores run on each call.
type Judger struct {
	queries *queryCache
	pairs   *cache.Cache[pairKey, float64]
	// refutes holds the refuter's outcome per pair (see refutation).
	refutes *cache.Cache[refuteKey, refutation]
}

// JudgerOptions bound the caches.
type JudgerOptions struct {
	MaxEntries int   // prepared queries; 0: 4096
	MaxBytes   int64 // approximate, prepared queries; 0: 64 MiB
	MaxPairs   int   // cached GMN pair similarities and refuter outcomes, each; 0: 16384; negative: none
}

// JudgerStats are the counters of a Judger's caches.
type JudgerStats struct {
	Queries cache.Stats // prepared references and candidates
	Pairs   cache.Stats // GMN pair similarities
}

// NewJudger returns a Judger with empty caches.
func NewJudger(o JudgerOptions) (*Judger, error) {
	if o.MaxEntries == 0 {
		o.MaxEntries = 4096
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = 64 << 20
	}
	if o.MaxPairs == 0 {
		o.MaxPairs = 16384
	}
	c, err := cache.New[cache.PlanKey, *prepared](cache.Options[cache.PlanKey, *prepared]{
		MaxEntries: o.MaxEntries,
		MaxBytes:   o.MaxBytes,
		SizeFunc:   func(_ cache.PlanKey, p *prepared) int64 { return p.approxBytes() },
	})
	if err != nil {
		return nil, fmt.Errorf("equivalence: query cache: %w", err)
	}
	j := &Judger{queries: &queryCache{c: c}}
	if o.MaxPairs > 0 {
		if j.pairs, err = cache.New[pairKey, float64](cache.Options[pairKey, float64]{MaxEntries: o.MaxPairs}); err != nil {
			return nil, fmt.Errorf("equivalence: pair cache: %w", err)
		}
		if j.refutes, err = cache.New[refuteKey, refutation](cache.Options[refuteKey, refutation]{MaxEntries: o.MaxPairs}); err != nil {
			return nil, fmt.Errorf("equivalence: refutation cache: %w", err)
		}
	}
	return j, nil
}

// Judge is Judge with both queries' artifacts taken from, or added to, the
// cache.
func (j *Judger) Judge(ctx context.Context, s *catalog.Schema, reference, candidate string, opts Options) (Verdict, error) {
	return judge(ctx, s, reference, candidate, opts, j)
}

// memo is what a judgement may reuse from earlier ones, and keep for
// later ones: a Judger's caches, or nothing (noMemo). The judgement is
// the same either way; only its cost differs.
type memo interface {
	// query returns the query prepared earlier for sql in role under s
	// and o, or nil and keep, which remembers the one prepared now (it
	// must not be shared yet).
	query(s *catalog.Schema, role, sql string, o Options) (q *prepared, keep func(*prepared))
	// similarity is score.Similarity of two prepared queries' graphs.
	similarity(ctx context.Context, m *gmn.Model, ref, cand *prepared) (float64, error)
	// refutation returns the outcome of an earlier search of the pair
	// with options o; keepRefutation remembers one.
	refutation(ref, cand *prepared, o RefuteOptions) (refutation, bool)
	keepRefutation(ref, cand *prepared, o RefuteOptions, r refutation)
}

// noMemo remembers nothing: Judge's memo.
type noMemo struct{}

func (noMemo) query(*catalog.Schema, string, string, Options) (*prepared, func(*prepared)) {
	return nil, func(*prepared) {}
}

func (noMemo) similarity(ctx context.Context, m *gmn.Model, ref, cand *prepared) (float64, error) {
	return score.Similarity(ctx, m, ref.graph, cand.graph)
}

func (noMemo) refutation(*prepared, *prepared, RefuteOptions) (refutation, bool) {
	return refutation{}, false
}

func (noMemo) keepRefutation(*prepared, *prepared, RefuteOptions, refutation) {}

func (j *Judger) query(s *catalog.Schema, role, sql string, o Options) (*prepared, func(*prepared)) {
	k := j.queries.key(s, role, sql, o)
	if q := j.queries.get(k); q != nil {
		return q, nil
	}
	return nil, func(q *prepared) { j.queries.add(k, q) }
}

// CacheStats reports the prepared-query cache's counters.
func (j *Judger) CacheStats() cache.Stats { return j.queries.c.Stats() }

// Stats reports the counters of both caches.
func (j *Judger) Stats() JudgerStats {
	st := JudgerStats{Queries: j.queries.c.Stats()}
	if j.pairs != nil {
		st.Pairs = j.pairs.Stats()
	}
	return st
}

// similarity returns the GMN similarity of two prepared queries, from the
// pair cache when both are cached.
func (j *Judger) similarity(ctx context.Context, m *gmn.Model, ref, cand *prepared) (float64, error) {
	if j.pairs == nil || ref.key == nil || cand.key == nil {
		return score.Similarity(ctx, m, ref.graph, cand.graph)
	}
	k := pairKey{ref: *ref.key, cand: *cand.key}
	if s, ok := j.pairs.Get(k); ok {
		return s, nil
	}
	s, err := score.Similarity(ctx, m, ref.graph, cand.graph)
	if err == nil {
		j.pairs.Add(k, s)
	}
	return s, err
}

// refutation returns the outcome of an earlier search of the same
// pair, so that a warm proxy does not search again for a statement it
// has judged: the search is deterministic for its seed.
func (j *Judger) refutation(ref, cand *prepared, o RefuteOptions) (refutation, bool) {
	if j.refutes == nil || ref.key == nil || cand.key == nil {
		return refutation{}, false
	}
	return j.refutes.Get(refuteKey{pairKey{*ref.key, *cand.key}, o})
}

func (j *Judger) keepRefutation(ref, cand *prepared, o RefuteOptions, r refutation) {
	if j.refutes == nil || ref.key == nil || cand.key == nil {
		return
	}
	j.refutes.Add(refuteKey{pairKey{*ref.key, *cand.key}, o}, r)
}

// pairKey identifies a pair of cached queries. The GMN is symmetric, but
// the keys of a reference and a candidate differ anyway (a candidate's
// preparation depends on the reference), so order is kept.
type pairKey struct{ ref, cand cache.PlanKey }

type queryCache struct {
	c *cache.Cache[cache.PlanKey, *prepared]
}

// Roles of a cached query: a candidate is prepared against the
// reference's ordering (a top-level ORDER BY only counts when the
// reference has one), so the reference's orderedness is part of its key.
const (
	roleReference        = "ref"
	roleCandidate        = "cand"
	roleOrderedCandidate = "cand-ordered"
)

// key identifies a prepared query: the schema, the dialect, its role, and
// its text with the options that change how it is prepared.
func (r *queryCache) key(s *catalog.Schema, role, sql string, o Options) cache.PlanKey {
	trust := "default"
	if o.TrustForeignKeys != nil {
		trust = fmt.Sprint(*o.TrustForeignKeys)
	}
	gmnID := "none"
	if o.GMN != nil {
		gmnID = fmt.Sprintf("%p", o.GMN)
	}
	return cache.PlanKey{
		Schema:  cache.FingerprintOf([]byte(s.Fingerprint())),
		Dialect: s.Dialect.String(),
		Plan:    cache.FingerprintOf([]byte(role + "\x00" + string(o.ColumnOrder) + "\x00" + trust + "\x00" + gmnID + "\x00" + sql)),
	}
}

func (r *queryCache) get(k cache.PlanKey) *prepared {
	p, _ := r.c.Get(k)
	return p
}

// add caches p under k and records k in p, which marks p as cached for the
// pair cache. p must not be shared yet.
func (r *queryCache) add(k cache.PlanKey, p *prepared) {
	p.key = &k
	r.c.Add(k, p)
}

// approxBytes estimates the memory a prepared query holds; plans of
// tens of nodes take a few kilobytes per node and expression.
func (p *prepared) approxBytes() int64 {
	nodes := 0
	p.p.Root.WalkNodes(func(_ *plan.Node) { nodes++ })
	n := int64(4096 + 2048*nodes + 256*len(p.p.Meta.Columns) + 2*len(p.canon))
	if p.exec != nil {
		n *= 2 // the refuter's copy of the plan before the rewrites
	}
	if p.graph != nil {
		// The embeddings, computed or not yet: a cached query may gain them.
		n += int64(p.graph.Nodes()) * (512 + 8*64)
	}
	return n
}
