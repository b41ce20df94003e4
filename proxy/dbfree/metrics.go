package dbfree

import (
	"cmp"
	"context"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Instrument registers the connection metrics relay mode has, under the
// same names, so that one dashboard serves both modes: connections open
// now by state (startup: before the greeting; active: answering
// statements), accepted, and refused over max_client_conn. The judge's
// metrics come from the Judging (Options.Judging).
func (s *Server) Instrument(mp metric.MeterProvider) error {
	meter := mp.Meter("github.com/pgequiv/pgequiv/proxy/dbfree")
	for _, c := range []struct {
		name, desc string
		v          func() uint64
	}{
		// Here accepted counts those under max_client_conn only.
		{"pgequiv.connections.accepted", "Client connections accepted", s.conns.Admitted},
		{"pgequiv.connections.refused", "Client connections refused for being over max_client_conn", s.conns.Refused},
	} {
		v := c.v
		if _, err := meter.Int64ObservableCounter(c.name, metric.WithDescription(c.desc),
			metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
				o.Observe(int64(v()))
				return nil
			})); err != nil {
			return err
		}
	}
	_, err := meter.Int64ObservableGauge("pgequiv.connections",
		metric.WithDescription("Client connections open now, by state (startup, active)"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			var startup, active int64
			for _, c := range s.conns.Snapshot() {
				if c.ready.Load() {
					active++
				} else if !c.refused {
					startup++
				}
			}
			o.Observe(startup, metric.WithAttributes(attribute.String("state", "startup")))
			o.Observe(active, metric.WithAttributes(attribute.String("state", "active")))
			return nil
		}))
	return err
}

// ClientInfo describes one connection past startup.
type ClientInfo struct {
	ConnID                                uint64
	User, Database, ApplicationName, Addr string
	Since                                 time.Time
}

// Clients lists the connections past startup, oldest first, for the
// admin console's SHOW CLIENTS.
func (s *Server) Clients() []ClientInfo {
	var out []ClientInfo
	for _, c := range s.conns.Snapshot() {
		if !c.ready.Load() {
			continue // the fields below are written before ready is set
		}
		out = append(out, ClientInfo{ConnID: uint64(c.id), User: c.user, Database: c.database,
			ApplicationName: c.application, Addr: c.remoteAddr, Since: c.since})
	}
	slices.SortFunc(out, func(a, b ClientInfo) int { return cmp.Compare(a.ConnID, b.ConnID) })
	return out
}
