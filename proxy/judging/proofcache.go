package judging

import (
	"crypto/sha256"
	"slices"

	"github.com/pgequiv/pgequiv/cache"
	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// A proof holds on every database the schema admits, so once the judge
// has proved a pair, the same pair under the same schema and settings is
// proved again without asking it: the proxy keeps its proofs and answers
// from them before the judge pool (a worker round trip, a queue). With a
// reference bound from the candidate's constants (JudgeBound), the pair
// judged first is the candidate's shape, whose text is the same whatever
// constants the application sends: every execution of a proved shape is
// then answered here. Only proofs are kept. An unknown depends on the
// search's budget, and a counterexample on a shape's parameters holds for
// some values only; those go to the judge each time, whose own caches
// serve what they can.
type proofCache struct {
	c *cache.Cache[proofKey, provedVerdict]
}

// provedVerdict is a kept proof and its summary line. A proof's summary
// shows no SQL (no counterexample; differences only for what is not
// proved), so one text serves the notice and the redacted records alike,
// and a statement answered from the proofs need not format it again.
type provedVerdict struct {
	v       equivalence.Verdict
	summary string
}

// proofKey is what a proof depends on: the schema (a refreshed schema is
// a new *catalog.Schema), the settings in force (a reload makes new
// ones: policies, assumptions accepted) and the two texts, by digest.
type proofKey struct {
	schema *catalog.Schema
	set    *JudgeSettings
	sum    [sha256.Size]byte
}

// proofCacheEntries and proofCacheBytes bound the proofs kept.
const (
	proofCacheEntries = 4096
	proofCacheBytes   = 16 << 20
)

func newProofCache() *proofCache {
	c, err := cache.New(cache.Options[proofKey, provedVerdict]{
		MaxEntries: proofCacheEntries, MaxBytes: proofCacheBytes, SizeFunc: proofSize,
	})
	if err != nil {
		return nil // constant options: cannot fail
	}
	return &proofCache{c: c}
}

// proofSize is an entry's approximate size: its texts.
func proofSize(_ proofKey, p provedVerdict) int64 {
	v := p.v
	n := 256 + len(v.ReferenceFingerprint) + len(v.CandidateFingerprint) + len(p.summary)
	for _, r := range v.Rules {
		n += len(r) + 16
	}
	for _, s := range v.Notes {
		n += len(s) + 16
	}
	return int64(n)
}

func newProofKey(s *catalog.Schema, set *JudgeSettings, ref, cand string) proofKey {
	h := sha256.New()
	h.Write([]byte(ref))
	h.Write([]byte{0})
	h.Write([]byte(cand))
	k := proofKey{schema: s, set: set}
	h.Sum(k.sum[:0])
	return k
}

func (p *proofCache) get(k proofKey) (equivalence.Verdict, bool) {
	pv, ok := p.getProved(k)
	return pv.v, ok
}

// getProved is get with the proof's summary.
func (p *proofCache) getProved(k proofKey) (provedVerdict, bool) {
	if p == nil {
		return provedVerdict{}, false
	}
	return p.c.Get(k)
}

// has reports whether k is kept, counting nothing: a caller that looks
// before the judge goroutine would otherwise count a miss twice.
func (p *proofCache) has(k proofKey) bool {
	if p == nil {
		return false
	}
	_, ok := p.c.Peek(k)
	return ok
}

// add keeps v if it is a proof.
func (p *proofCache) add(k proofKey, v equivalence.Verdict) {
	if p == nil || !v.Label.Proved() || v.Counterexample != nil {
		return
	}
	// Each hit hands out a copy of v: clipped, an append to one of its
	// lists copies it rather than writing into the shared array.
	v.Rules, v.Notes = slices.Clip(v.Rules), slices.Clip(v.Notes)
	v.Assumptions, v.Differences = slices.Clip(v.Assumptions), slices.Clip(v.Differences)
	p.c.Add(k, provedVerdict{v: v, summary: verdictSummary(v, nil)})
}

func (p *proofCache) stats() cache.Stats {
	if p == nil {
		return cache.Stats{}
	}
	return p.c.Stats()
}
