package proxy

import (
	"context"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Relay directions, indexing relayCounters' per-direction counters.
const (
	dirToUpstream = iota // client to upstream
	dirToClient          // upstream to client
)

// paddedCounter keeps a hot counter on its own cache line, so that event
// loops and relay goroutines on different cores adding to neighbouring
// counters do not contend.
type paddedCounter struct {
	atomic.Uint64
	_ [56]byte
}

// relayCounters are the relay's own counters, read by the metrics
// callbacks at collection time. The relay only adds to them: one atomic
// add per event, none per byte (the fast relay adds a flush's bytes and
// messages at once).
type relayCounters struct {
	bytes, msgs [2]paddedCounter // by direction

	upstreamErrors atomic.Uint64
	// fast: connections that began on the fast relay; demoted: those of
	// them handed to the goroutine relay; goroutine: connections relayed
	// by goroutines (from the start or after a demotion).
	fast, demoted, goroutine atomic.Uint64
}

// addRelayed counts n bytes in msgs messages relayed in direction dir.
func (r *relayCounters) addRelayed(dir int, n, msgs uint64) {
	if n > 0 {
		r.bytes[dir].Add(n)
	}
	if msgs > 0 {
		r.msgs[dir].Add(msgs)
	}
}

var dirAttrs = [2]metric.MeasurementOption{
	metric.WithAttributes(attribute.String("direction", "client_to_upstream")),
	metric.WithAttributes(attribute.String("direction", "upstream_to_client")),
}

// Instrument registers the relay's metrics with mp: connections (current,
// by state; accepted; refused over max_client_conn), bytes and messages
// relayed by direction, connections by relay path, and upstream connect
// errors. The values are read when mp collects; the relay itself only
// adds to atomic counters.
func (s *Server) Instrument(mp metric.MeterProvider) error {
	meter := mp.Meter("github.com/pgequiv/pgequiv/proxy")
	r := &s.relay
	counters := []struct {
		name, desc string
		observe    func(metric.Int64Observer)
	}{
		{"pgequiv.relay.bytes", "Bytes relayed, by direction", func(o metric.Int64Observer) {
			for d := range r.bytes {
				o.Observe(int64(r.bytes[d].Load()), dirAttrs[d])
			}
		}},
		{"pgequiv.relay.messages", "Protocol messages relayed, by direction (the fast relay counts them as it writes them out)", func(o metric.Int64Observer) {
			for d := range r.msgs {
				o.Observe(int64(r.msgs[d].Load()), dirAttrs[d])
			}
		}},
		{"pgequiv.relay.connections", "Connections by relay path: fast (began on the event-loop relay), demoted (handed from it to goroutines), goroutine (relayed by goroutines)", func(o metric.Int64Observer) {
			o.Observe(int64(r.fast.Load()), metric.WithAttributes(attribute.String("path", "fast")))
			o.Observe(int64(r.demoted.Load()), metric.WithAttributes(attribute.String("path", "demoted")))
			o.Observe(int64(r.goroutine.Load()), metric.WithAttributes(attribute.String("path", "goroutine")))
		}},
		{"pgequiv.connections.accepted", "Client connections accepted", func(o metric.Int64Observer) {
			o.Observe(int64(s.conns.Admitted() + s.conns.Refused())) // refused ones were accepted too
		}},
		{"pgequiv.connections.refused", "Client connections refused for being over max_client_conn", func(o metric.Int64Observer) {
			o.Observe(int64(s.conns.Refused()))
		}},
		{"pgequiv.upstream.connect_errors", "Failed connections to the upstream server", func(o metric.Int64Observer) {
			o.Observe(int64(r.upstreamErrors.Load()))
		}},
	}
	for _, c := range counters {
		observe := c.observe
		if _, err := meter.Int64ObservableCounter(c.name, metric.WithDescription(c.desc),
			metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error { observe(o); return nil })); err != nil {
			return err
		}
	}
	_, err := meter.Int64ObservableGauge("pgequiv.connections",
		metric.WithDescription("Client connections open now, by state (startup, auth, relay, closed)"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			var n [stateClosed + 1]int64
			for _, c := range s.conns.Snapshot() {
				if st := connState(c.state.Load()); st >= 0 && st <= stateClosed {
					n[st]++
				}
			}
			for st, v := range n {
				o.Observe(v, metric.WithAttributes(attribute.String("state", connState(st).String())))
			}
			return nil
		}))
	return err
}
