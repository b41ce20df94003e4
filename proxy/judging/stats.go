package judging

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pgequiv/pgequiv/cache"
	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/proxy"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// judgeStats are the admin console's counters.
type judgeStats struct {
	tagged, sessionCommands, refusals, timeouts, late atomic.Uint64
	equivalent, underAssumptions, notEquivalent       atomic.Uint64
	unknown, errors                                   atomic.Uint64
	introspections, introspectionFailures             atomic.Uint64
	verdictLogErrors                                  atomic.Uint64
	// oversized: statements over max_query_size, not read; of which
	// unmatched: untagged ones a match: catalog could not fingerprint.
	oversized, oversizedUnmatched atomic.Uint64
}

func (s *judgeStats) count(label string) {
	switch equivalence.Label(label) {
	case equivalence.Equivalent:
		s.equivalent.Add(1)
	case equivalence.EquivalentUnderAssumptions:
		s.underAssumptions.Add(1)
	case equivalence.NotEquivalent:
		s.notEquivalent.Add(1)
	case equivalence.Unknown:
		s.unknown.Add(1)
	default:
		if label == "error" {
			s.errors.Add(1)
		}
	}
}

// Stats returns the counters, including the judge's query and GMN pair
// caches.
func (j *Judging) Stats() []proxy.JudgeStat {
	js := j.judger.Stats()
	sup := j.judger.Supervision()
	c := js.Queries
	pc := j.proofs.stats()
	sm := j.shapes.stats()
	s := &j.stats
	return []proxy.JudgeStat{
		{Name: "tagged", Value: s.tagged.Load()},
		{Name: "equivalent", Value: s.equivalent.Load()},
		{Name: "equivalent_under_assumptions", Value: s.underAssumptions.Load()},
		{Name: "not_equivalent", Value: s.notEquivalent.Load()},
		{Name: "unknown", Value: s.unknown.Load()},
		{Name: "errors", Value: s.errors.Load()},
		{Name: "timeouts", Value: s.timeouts.Load()},
		{Name: "late", Value: s.late.Load()},
		{Name: "refusals", Value: s.refusals.Load()},
		{Name: "session_commands", Value: s.sessionCommands.Load()},
		{Name: "introspections", Value: s.introspections.Load()},
		{Name: "introspection_failures", Value: s.introspectionFailures.Load()},
		{Name: "cache_hits", Value: c.Hits},
		{Name: "cache_misses", Value: c.Misses},
		{Name: "cache_evictions", Value: c.Evictions},
		{Name: "cache_entries", Value: uint64(c.Entries)},
		{Name: "pair_cache_hits", Value: js.Pairs.Hits},
		{Name: "pair_cache_misses", Value: js.Pairs.Misses},
		{Name: "proof_cache_hits", Value: pc.Hits},
		{Name: "proof_cache_misses", Value: pc.Misses},
		{Name: "proof_cache_entries", Value: uint64(pc.Entries)},
		// Tagged statements read in one lexer pass (a known shape) or
		// through the full path (shapememo.go).
		{Name: "shape_memo_hits", Value: sm.Hits},
		{Name: "shape_memo_misses", Value: sm.Misses},
		{Name: "shape_memo_entries", Value: uint64(sm.Entries)},
		{Name: "judge_workers", Value: uint64(sup.Workers)},
		{Name: "judge_worker_restarts", Value: sup.Restarts},
		{Name: "judge_worker_deaths", Value: sup.Deaths},
		{Name: "judge_worker_deadline_kills", Value: sup.DeadlineKills},
		{Name: "judge_worker_memory_kills", Value: sup.MemoryKills},
		{Name: "judge_worker_start_failures", Value: sup.StartFailures},
		{Name: "judge_panics", Value: sup.Panics},
		{Name: "verdict_log_errors", Value: s.verdictLogErrors.Load()},
		{Name: "oversized", Value: s.oversized.Load()},
		{Name: "oversized_unmatched", Value: s.oversizedUnmatched.Load()},
		// Tagged statements answered unread: the proxy was busy reading
		// others for half their verdict timeout (admission.go).
		{Name: "busy_unread", Value: j.admit.shed.Load()},
	}
}

// verdictRing keeps the most recent verdicts.
type verdictRing struct {
	mu   sync.Mutex
	buf  []proxy.VerdictRecord
	next int
	full bool
}

func (r *verdictRing) resize(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n == len(r.buf) {
		return
	}
	old := r.recentLocked()
	r.buf, r.next, r.full = make([]proxy.VerdictRecord, n), 0, false
	for i := min(n, len(old)) - 1; i >= 0; i-- {
		r.addLocked(old[i]) // oldest kept first
	}
}

func (r *verdictRing) add(v proxy.VerdictRecord) {
	r.mu.Lock()
	r.addLocked(v)
	r.mu.Unlock()
}

func (r *verdictRing) addLocked(v proxy.VerdictRecord) {
	if len(r.buf) == 0 {
		return
	}
	r.buf[r.next] = v
	r.next = (r.next + 1) % len(r.buf)
	if r.next == 0 {
		r.full = true
	}
}

// recentLocked returns the records, newest first.
func (r *verdictRing) recentLocked() []proxy.VerdictRecord {
	n := r.next
	if r.full {
		n = len(r.buf)
	}
	out := make([]proxy.VerdictRecord, 0, n)
	for i := 1; i <= n; i++ {
		out = append(out, r.buf[(r.next-i+len(r.buf))%len(r.buf)])
	}
	return out
}

// RecentVerdicts returns the remembered verdicts, newest query first.
// They are recorded as judgements end, which need not be the order the
// queries arrived in.
func (j *Judging) RecentVerdicts() []proxy.VerdictRecord {
	j.ring.mu.Lock()
	out := j.ring.recentLocked()
	j.ring.mu.Unlock()
	slices.SortStableFunc(out, func(a, b proxy.VerdictRecord) int { return b.Time.Compare(a.Time) })
	return out
}

// observeCaches reports the judge's cache counters to an otel observable
// counter.
func (j *Judging) observeCaches(_ context.Context, o metric.Int64Observer) error {
	st := j.judger.Stats()
	for _, c := range []struct {
		name string
		s    cache.Stats
	}{{"queries", st.Queries}, {"pairs", st.Pairs}} {
		for _, e := range []struct {
			event string
			n     uint64
		}{{"hit", c.s.Hits}, {"miss", c.s.Misses}, {"eviction", c.s.Evictions}} {
			o.Observe(int64(e.n), metric.WithAttributes(attribute.String("cache", c.name), attribute.String("event", e.event)))
		}
	}
	return nil
}
