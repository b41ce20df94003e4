package prove_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence/prove"
	"github.com/pgequiv/pgequiv/internal/shareddata"
	"github.com/pgequiv/pgequiv/planner"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// knownOneWay lists pairs proved with one side as the reference only,
// each with the reason; every other pair proved one way must be proved
// the other way too (equivalence is symmetric, and a proof that depends on
// which query is the reference is a rule applied to one side only).
// (The CockroachDB suite's one-way proofs, found when it joined the
// corpus, are symmetric since agg-same leaves an unpaired call of either
// side unmapped and self-join-on-key links a dropped scan's columns to
// its partner's on either side.)
var knownOneWay = map[string]string{}

// TestProofsSymmetric proves every pair of the prover suites, the Spider
// pairs (and pairs of neighbouring Spider queries of one database) and
// the curated cases with reference and candidate swapped.
func TestProofsSymmetric(t *testing.T) {
	ctx := context.Background()
	check := func(id string, s *catalog.Schema, ref, cand string, opts prove.Options) {
		a, err1 := planner.Plan(ctx, s, ref, planner.Options{})
		b, err2 := planner.Plan(ctx, s, cand, planner.Options{})
		if err1 != nil || err2 != nil {
			return
		}
		fwd, err := prove.Equivalent(ctx, a, b, opts)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		back, err := prove.Equivalent(ctx, b, a, opts)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if fwd.Proved == back.Proved {
			if why, ok := knownOneWay[id]; ok {
				t.Errorf("%s: listed as one-way (%s) but proved alike both ways (%v): drop it from knownOneWay", id, why, fwd.Proved)
			}
			return
		}
		if _, ok := knownOneWay[id]; ok {
			return
		}
		t.Errorf("%s: proved %v as given, %v swapped (rules %v / %v)\n  ref:  %s\n  cand: %s", id, fwd.Proved, back.Proved, fwd.Rules, back.Rules, ref, cand)
	}
	for _, c := range soundnessCorpus {
		schemas := schemaLoader(t, shareddata.Path(t, "data/"+c.schemas), c.dialect)
		for _, p := range loadPairs(t, shareddata.Path(t, "data/"+c.file)) {
			s := schemas(p.DB)
			check(p.ID, s, p.Reference, p.Candidate, prove.Options{TrustForeignKeys: c.dialect == catalog.Postgres, SQLite: c.dialect == catalog.SQLite})
		}
	}
	// Pairs no one wrote: neighbouring Spider queries of one database.
	pairs := loadPairs(t, shareddata.Path(t, "data/spider_pair_dev.jsonl"))
	schemas := schemaLoader(t, shareddata.Path(t, "data/schemas"), catalog.SQLite)
	for i := 0; i+1 < len(pairs); i++ {
		p, q := pairs[i], pairs[i+1]
		if p.DB != q.DB {
			continue
		}
		s := schemas(p.DB)
		for k, pair := range [][2]string{{p.Reference, q.Candidate}, {p.Candidate, q.Reference}, {p.Reference, q.Reference}, {p.Candidate, q.Candidate}} {
			check(fmt.Sprintf("%s~%s#%d", p.ID, q.ID, k), s, pair[0], pair[1], prove.Options{SQLite: true})
		}
	}
	cf, s := loadCuratedCases(t)
	for _, c := range cf.Cases {
		if len(c.Policy) == 0 {
			check(c.ID, s, c.Reference, c.Candidate, prove.Options{TrustForeignKeys: true})
		}
	}
}
