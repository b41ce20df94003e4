package judging

import (
	"context"
	"encoding/binary"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// sdkProviders returns the OpenTelemetry SDK's tracer and meter providers
// (not no-ops: spans record, measurements aggregate) with a recorder of
// every span started and a reader of every measurement.
func sdkProviders(t testing.TB) (*sdktrace.TracerProvider, *tracetest.SpanRecorder, *sdkmetric.MeterProvider, *sdkmetric.ManualReader) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	return tp, spans, mp, reader
}

// measured returns the data points recorded by the synchronous
// instruments named (observable ones are read at collection, not here).
func measured(t testing.TB, reader *sdkmetric.ManualReader, names ...string) int {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			for _, name := range names {
				if m.Name != name {
					continue
				}
				switch d := m.Data.(type) {
				case metricdata.Sum[int64]:
					n += len(d.DataPoints)
				case metricdata.Histogram[float64]:
					n += len(d.DataPoints)
				}
			}
		}
	}
	return n
}

// TestUntaggedTelemetryFree is issue 24's "no span on the untagged path":
// with the SDK installed, untagged statements through a real proxy to a
// real PostgreSQL, over the simple and extended protocols, start no span
// and record no measurement, and a tagged one starts exactly one span
// (the recorder is wired: the zero is not for want of a tracer).
func TestUntaggedTelemetryFree(t *testing.T) {
	tp, spans, mp, reader := sdkProviders(t)
	e := startJudgeProxy(t, annotateSettings(t), JudgingOptions{TracerProvider: tp, MeterProvider: mp})
	ctx := testCtx(t, 60*time.Second)
	conn, _ := e.connectNotices(t, ctx, kennelDB)
	untagged := []string{countStar, countOwner + " /* app='x' */", "SELECT name FROM dogs WHERE age > 5"}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec, pgx.QueryExecModeCacheStatement} {
		for _, q := range untagged {
			for range 20 {
				rows, err := conn.Query(ctx, q, mode)
				if err != nil {
					t.Fatal(err)
				}
				rows.Close()
				if err := rows.Err(); err != nil {
					t.Fatalf("%v %q: %v", mode, q, err)
				}
			}
		}
	}
	e.j.Wait()
	if n := len(spans.Started()); n != 0 {
		t.Fatalf("%d spans started for untagged statements, want 0: %v", n, spans.Started()[0].Name())
	}
	if n := measured(t, reader, "pgequiv.verdicts", "pgequiv.judge.duration"); n != 0 {
		t.Fatalf("%d verdict data points for untagged statements, want 0", n)
	}

	if _, err := conn.Exec(ctx, withComment(countOwner, countStar)); err != nil {
		t.Fatal(err)
	}
	e.j.Wait()
	if got := spans.Ended(); len(got) != 1 || got[0].Name() != "pgequiv.judge" {
		t.Fatalf("a tagged statement: %d spans, want one pgequiv.judge", len(got))
	}
	if n := measured(t, reader, "pgequiv.verdicts"); n != 1 {
		t.Fatalf("a tagged statement: %d verdict data points, want 1", n)
	}
}

// TestUntaggedRelayAllocs: with the SDK installed in both the judge and
// the relay's instruments, untagged simple-protocol round trips through a
// real proxy to a real PostgreSQL allocate nothing in the process (the
// client writes pre-encoded messages on a hijacked connection and reads
// into a fixed buffer, so it allocates nothing either). A few incidental
// allocations (runtime, timers) are tolerated; one per statement is not.
func TestUntaggedRelayAllocs(t *testing.T) {
	tp, spans, mp, _ := sdkProviders(t)
	e := startJudgeProxy(t, annotateSettings(t), JudgingOptions{TracerProvider: tp, MeterProvider: mp})
	if err := e.Instrument(mp); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t, 60*time.Second)
	pc, err := pgconn.Connect(ctx, dbConnString(e.Host, e.Port, pgtest.SuperUser, "", kennelDB))
	if err != nil {
		t.Fatal(err)
	}
	hj, err := pc.Hijack()
	if err != nil {
		t.Fatal(err)
	}
	defer hj.Conn.Close()
	var msgs []byte
	for _, q := range []string{countStar, "SELECT name FROM dogs WHERE age > 5 /* app='x' */"} {
		if msgs, err = (&pgproto3.Query{String: q}).Encode(msgs); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, 64<<10)
	roundTrip := func() {
		if _, err := hj.Conn.Write(msgs); err != nil {
			t.Fatal(err)
		}
		for ready := 0; ready < 2; {
			if _, err := io.ReadFull(hj.Conn, buf[:5]); err != nil {
				t.Fatal(err)
			}
			typ, n := buf[0], int(binary.BigEndian.Uint32(buf[1:5]))-4
			if n < 0 || n > len(buf) {
				t.Fatalf("message %c of %d bytes", typ, n)
			}
			if _, err := io.ReadFull(hj.Conn, buf[:n]); err != nil {
				t.Fatal(err)
			}
			switch typ {
			case 'E':
				t.Fatalf("error from the proxy: %q", buf[:n])
			case 'Z':
				ready++
			}
		}
	}
	for range 200 { // warm: buffers grown, caches filled
		roundTrip()
	}
	const rounds = 1000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range rounds {
		roundTrip()
	}
	runtime.ReadMemStats(&after)
	if n := after.Mallocs - before.Mallocs; n > rounds/10 {
		t.Fatalf("%d allocations in %d round trips of 2 untagged statements, want about none", n, rounds)
	}
	if n := len(spans.Started()); n != 0 {
		t.Fatalf("%d spans for untagged statements", n)
	}
}
