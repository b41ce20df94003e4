package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/pgequiv/pgequiv/proxy"
)

// statsPeriod is how often serve logs its one-line stats summary, as
// PgBouncer logs its own every stats_period (60 s by default): operators
// read the log for "is it doing anything" before they open a console.
const statsPeriod = time.Minute

// statsCounters are the judging counters (SHOW STATS names) the summary
// line shows, as their change over the period.
var statsCounters = []string{"tagged", "equivalent", "equivalent_under_assumptions", "not_equivalent",
	"unknown", "errors", "timeouts", "refusals"}

// statsSummary turns successive SHOW STATS readings into the summary
// line's attributes.
type statsSummary struct {
	prev map[string]uint64
}

// attrs is the line for the period ending with cur: the clients connected
// now, then each of statsCounters' change since the previous reading (the
// first reading counts from zero, the server's start).
func (s *statsSummary) attrs(cur []proxy.JudgeStat, clients int, period time.Duration) []any {
	now := make(map[string]uint64, len(cur))
	for _, st := range cur {
		now[st.Name] = st.Value
	}
	out := []any{"period", period, "clients", clients}
	for _, name := range statsCounters {
		// A counter never goes down; guard anyway, so that a reset could
		// never print a wrapped-around uint64.
		d := uint64(0)
		if v, p := now[name], s.prev[name]; v >= p {
			d = v - p
		}
		out = append(out, name, d)
	}
	s.prev = now
	return out
}

// startStatsLog logs the summary at each tick until ctx ends; the
// returned channel closes when it has stopped. tick nil: every
// statsPeriod. logged, if set, is called after each line (tests).
func startStatsLog(ctx context.Context, logger *slog.Logger, tick <-chan time.Time, logged func(),
	stats func() []proxy.JudgeStat, clients func() int) <-chan struct{} {
	done := make(chan struct{})
	var ticker *time.Ticker
	if tick == nil {
		ticker = time.NewTicker(statsPeriod)
		tick = ticker.C
	}
	go func() {
		defer close(done)
		if ticker != nil {
			defer ticker.Stop()
		}
		var sum statsSummary
		last := time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick:
				now := time.Now()
				logger.Info("stats", sum.attrs(stats(), clients(), now.Sub(last).Round(time.Second))...)
				last = now
				if logged != nil {
					logged()
				}
			}
		}
	}()
	return done
}
