package judging

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
)

// TestProofCacheServesShapes: a statement tagged with a reference bound
// from its constants ($1) is judged by shape; once the shape is proved,
// every later execution with another constant is answered from the
// proxy's proofs (proof_cache_hits), not the judge. A pair that is not
// proved is never kept: each execution goes to the judge again.
func TestProofCacheServesShapes(t *testing.T) {
	e := startJudgeProxy(t, annotateSettings(t), JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	conn, notices := e.connectNotices(t, ctx, kennelDB)
	stat := func(name string) uint64 {
		for _, s := range e.j.Stats() {
			if s.Name == name {
				return s.Value
			}
		}
		t.Fatalf("no stat %s", name)
		return 0
	}
	const ref = "SELECT d.name FROM dogs d WHERE d.age > $1"
	const runs = 12
	for i := range runs {
		cand := withComment("SELECT name FROM dogs WHERE "+strconv.Itoa(i)+" < age", ref)
		if _, err := conn.Exec(ctx, cand); err != nil {
			t.Fatal(err)
		}
		if ns := notices(); len(ns) != 1 || !strings.HasPrefix(ns[0], equivNotice) {
			t.Fatalf("run %d: notices %q", i, ns)
		}
	}
	if hits, misses, n := stat("proof_cache_hits"), stat("proof_cache_misses"), stat("proof_cache_entries"); hits != runs-1 || misses != 1 || n != 1 {
		t.Fatalf("proof cache: %d hits, %d misses, %d entries; want %d, 1, 1", hits, misses, n, runs-1)
	}
	// Not proved: >= against >. Each run is judged, nothing is kept.
	for i := range 3 {
		cand := withComment("SELECT name FROM dogs WHERE age >= "+strconv.Itoa(i), ref)
		if _, err := conn.Exec(ctx, cand); err != nil {
			t.Fatal(err)
		}
		if ns := notices(); len(ns) != 1 || strings.HasPrefix(ns[0], equivNotice) {
			t.Fatalf("not proved, run %d: notices %q", i, ns)
		}
	}
	if hits, n := stat("proof_cache_hits"), stat("proof_cache_entries"); hits != runs-1 || n != 1 {
		t.Fatalf("after unproved pairs: %d hits, %d entries; want %d, 1", hits, n, runs-1)
	}
}

// TestProofSummaryNeedsNoRedaction: the proof cache keeps one summary per
// proof for the notice and for the redacted records; that holds only if a
// kept verdict's summary shows no SQL text. Each verdict here carries
// literals where a summary could show them; those the cache keeps must
// summarize the same with and without redaction, and be kept with that
// summary, while those it refuses (a counterexample, not proved) are
// where redaction matters.
func TestProofSummaryNeedsNoRedaction(t *testing.T) {
	diff := []equivalence.Difference{{Component: "where", Reference: "age > 'SECRET'", Candidate: "age > 'OTHER'"}}
	for _, tc := range []struct {
		name string
		v    equivalence.Verdict
		kept bool
	}{
		{"equivalent with rules", equivalence.Verdict{Label: equivalence.Equivalent, Score: 1, Rules: []string{"join-elimination"}, Differences: diff}, true},
		{"equivalent under assumptions", equivalence.Verdict{Label: equivalence.EquivalentUnderAssumptions, Score: 1, Differences: diff,
			Assumptions: []equivalence.Assumption{{Kind: equivalence.AssumeNonEmpty, Subject: "dogs"}}}, true},
		{"not equivalent without a counterexample", equivalence.Verdict{Label: equivalence.NotEquivalent, Differences: diff}, false},
		{"not equivalent with a counterexample", equivalence.Verdict{Label: equivalence.NotEquivalent, Differences: diff,
			Counterexample: &equivalence.Counterexample{Inserts: []string{"INSERT INTO dogs VALUES ('SECRET')"}}}, false},
		{"unknown", equivalence.Verdict{Label: equivalence.Unknown, Score: 0.4, Differences: diff}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProofCache()
			k := proofKey{sum: [32]byte{1}}
			p.add(k, tc.v)
			pv, kept := p.getProved(k)
			if kept != tc.kept {
				t.Fatalf("kept %v, want %v", kept, tc.kept)
			}
			plain, redacted := verdictSummary(tc.v, keepText), verdictSummary(tc.v, redactLiterals)
			if !kept {
				if plain == redacted {
					t.Fatalf("not kept, and redaction changes nothing (%q): the case tests nothing", plain)
				}
				return
			}
			if plain != redacted || pv.summary != plain {
				t.Fatalf("kept summary %q; plain %q, redacted %q: want all equal", pv.summary, plain, redacted)
			}
			if strings.Contains(pv.summary, "SECRET") {
				t.Fatalf("kept summary shows a literal: %q", pv.summary)
			}
		})
	}
}
