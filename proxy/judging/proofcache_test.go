package judging

import (
	"strconv"
	"strings"
	"testing"
	"time"
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
