package proxy

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pgequiv/pgequiv/cache"
	"github.com/pgequiv/pgequiv/equivalence"
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
func (j *Judging) Stats() []JudgeStat {
	js := j.judger.Stats()
	sup := j.judger.Supervision()
	c := js.Queries
	s := &j.stats
	return []JudgeStat{
		{"tagged", s.tagged.Load()},
		{"equivalent", s.equivalent.Load()},
		{"equivalent_under_assumptions", s.underAssumptions.Load()},
		{"not_equivalent", s.notEquivalent.Load()},
		{"unknown", s.unknown.Load()},
		{"errors", s.errors.Load()},
		{"timeouts", s.timeouts.Load()},
		{"late", s.late.Load()},
		{"refusals", s.refusals.Load()},
		{"session_commands", s.sessionCommands.Load()},
		{"introspections", s.introspections.Load()},
		{"introspection_failures", s.introspectionFailures.Load()},
		{"cache_hits", c.Hits},
		{"cache_misses", c.Misses},
		{"cache_evictions", c.Evictions},
		{"cache_entries", uint64(c.Entries)},
		{"pair_cache_hits", js.Pairs.Hits},
		{"pair_cache_misses", js.Pairs.Misses},
		{"judge_workers", uint64(sup.Workers)},
		{"judge_worker_restarts", sup.Restarts},
		{"judge_worker_deaths", sup.Deaths},
		{"judge_worker_deadline_kills", sup.DeadlineKills},
		{"judge_worker_memory_kills", sup.MemoryKills},
		{"judge_worker_start_failures", sup.StartFailures},
		{"judge_panics", sup.Panics},
		{"verdict_log_errors", s.verdictLogErrors.Load()},
		{"oversized", s.oversized.Load()},
		{"oversized_unmatched", s.oversizedUnmatched.Load()},
	}
}

// verdictRing keeps the most recent verdicts.
type verdictRing struct {
	mu   sync.Mutex
	buf  []VerdictRecord
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
	r.buf, r.next, r.full = make([]VerdictRecord, n), 0, false
	for i := min(n, len(old)) - 1; i >= 0; i-- {
		r.addLocked(old[i]) // oldest kept first
	}
}

func (r *verdictRing) add(v VerdictRecord) {
	r.mu.Lock()
	r.addLocked(v)
	r.mu.Unlock()
}

func (r *verdictRing) addLocked(v VerdictRecord) {
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
func (r *verdictRing) recentLocked() []VerdictRecord {
	n := r.next
	if r.full {
		n = len(r.buf)
	}
	out := make([]VerdictRecord, 0, n)
	for i := 1; i <= n; i++ {
		out = append(out, r.buf[(r.next-i+len(r.buf))%len(r.buf)])
	}
	return out
}

// RecentVerdicts returns the remembered verdicts, newest query first.
// They are recorded as judgements end, which need not be the order the
// queries arrived in.
func (j *Judging) RecentVerdicts() []VerdictRecord {
	j.ring.mu.Lock()
	out := j.ring.recentLocked()
	j.ring.mu.Unlock()
	slices.SortStableFunc(out, func(a, b VerdictRecord) int { return b.Time.Compare(a.Time) })
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
