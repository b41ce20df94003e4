package proxy

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// collectSums reads the int64 sums and gauges as "name attr=value,..." →
// value.
func collectSums(t *testing.T, r *sdkmetric.ManualReader) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	key := func(name string, set attribute.Set) string {
		var parts []string
		for _, kv := range set.ToSlice() {
			parts = append(parts, string(kv.Key)+"="+kv.Value.Emit())
		}
		return strings.TrimSpace(name + " " + strings.Join(parts, ","))
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[key(m.Name, p.Attributes)] = p.Value
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					out[key(m.Name, p.Attributes)] = p.Value
				}
			}
		}
	}
	return out
}

// TestRelayMetrics: queries through the fast relay and the goroutine
// relay show in the relay's counters; a failed upstream dial is counted.
func TestRelayMetrics(t *testing.T) {
	for _, fast := range []bool{true, false} {
		name := map[bool]string{true: "fast", false: "goroutine"}[fast]
		t.Run(name, func(t *testing.T) {
			opts := upstreamOpts()
			opts.DisableFastRelay = !fast
			p := startProxy(t, opts)
			reader := sdkmetric.NewManualReader()
			if err := p.Instrument(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))); err != nil {
				t.Fatal(err)
			}
			ctx := testCtx(t, 30*time.Second)
			conn := p.connect(t, ctx, pgtest.SuperUser, "")
			for i := range 20 {
				var n int
				if err := conn.QueryRow(ctx, "SELECT $1::int", pgx.QueryExecModeSimpleProtocol, i).Scan(&n); err != nil || n != i {
					t.Fatalf("query: %d, %v", n, err)
				}
			}
			m := collectSums(t, reader)
			for _, k := range []string{
				"pgequiv.relay.bytes direction=client_to_upstream", "pgequiv.relay.bytes direction=upstream_to_client",
				"pgequiv.relay.messages direction=client_to_upstream", "pgequiv.relay.messages direction=upstream_to_client",
			} {
				if m[k] < 20 {
					t.Errorf("%s = %d after 20 queries", k, m[k])
				}
			}
			if m["pgequiv.connections.accepted"] != 1 || m["pgequiv.connections state=relay"] != 1 {
				t.Errorf("connections: %v", m)
			}
			if fast && m["pgequiv.relay.connections path=fast"] != 1 || !fast && m["pgequiv.relay.connections path=goroutine"] != 1 {
				t.Errorf("relay paths: %v", m)
			}
		})
	}
	t.Run("upstream connect error", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close() // nothing listens there now
		opts := upstreamOpts()
		opts.Upstream.Address = addr
		p := startProxy(t, opts)
		reader := sdkmetric.NewManualReader()
		if err := p.Instrument(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))); err != nil {
			t.Fatal(err)
		}
		ctx := testCtx(t, 30*time.Second)
		if c, err := pgx.Connect(ctx, p.connString(pgtest.SuperUser, "")); err == nil {
			c.Close(ctx)
			t.Fatal("connected through a proxy whose upstream is down")
		}
		if err := p.waitConnEnd(t, ctx); err == nil {
			t.Fatal("the connection ended without an error")
		}
		if m := collectSums(t, reader); m["pgequiv.upstream.connect_errors"] != 1 {
			t.Fatalf("connect errors: %v", m)
		}
	})
}
