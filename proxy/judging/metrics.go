package judging

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// instrumentStats registers the admin console's judge counters (tagged
// queries, refusals, timeouts, ...) and the judge workers' supervision
// counters as observable instruments, read at collection time.
func (j *Judging) instrumentStats(meter metric.Meter) error {
	s := &j.stats
	_, err := meter.Int64ObservableCounter("pgequiv.judge.events",
		metric.WithDescription("Judge events by kind: tagged (queries judged), refusal (enforce refused a query), timeout, late (an annotate verdict after its query's answer), session_command, introspection, introspection_failure, panic"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			for _, e := range []struct {
				name string
				v    uint64
			}{
				{"tagged", s.tagged.Load()}, {"refusal", s.refusals.Load()}, {"timeout", s.timeouts.Load()},
				{"late", s.late.Load()}, {"session_command", s.sessionCommands.Load()},
				{"introspection", s.introspections.Load()}, {"introspection_failure", s.introspectionFailures.Load()},
				{"panic", j.judger.Supervision().Panics},
			} {
				o.Observe(int64(e.v), metric.WithAttributes(attribute.String("event", e.name)))
			}
			return nil
		}))
	if err != nil {
		return err
	}
	_, err = meter.Int64ObservableCounter("pgequiv.judge.worker.events",
		metric.WithDescription("Judge worker process events (judge_isolation: process): restart, death, deadline_kill, memory_kill, start_failure"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			sup := j.judger.Supervision()
			for _, e := range []struct {
				name string
				v    uint64
			}{
				{"restart", sup.Restarts}, {"death", sup.Deaths}, {"deadline_kill", sup.DeadlineKills},
				{"memory_kill", sup.MemoryKills}, {"start_failure", sup.StartFailures},
			} {
				o.Observe(int64(e.v), metric.WithAttributes(attribute.String("event", e.name)))
			}
			return nil
		}))
	if err != nil {
		return err
	}
	_, err = meter.Int64ObservableGauge("pgequiv.judge.workers",
		metric.WithDescription("Judge worker processes running (0 with judge_isolation: none)"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			o.Observe(int64(j.judger.Supervision().Workers))
			return nil
		}))
	return err
}
