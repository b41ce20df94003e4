package telemetry

import (
	"context"
	"errors"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

var errCollector = errors.New("collector gone")

// fakeSpanExporter counts export calls and fails while err is set.
type fakeSpanExporter struct {
	calls int
	err   error
}

func (f *fakeSpanExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error {
	f.calls++
	return f.err
}

func (f *fakeSpanExporter) Shutdown(context.Context) error { return nil }

// loopless returns a span queue whose state the test drives by calling
// export itself (no loop goroutine; the retry timer never fires).
func loopless(exp sdktrace.SpanExporter) *spanQueue {
	q := &spanQueue{exp: exp, timeout: time.Second, retry: time.NewTimer(time.Hour)}
	q.retry.Stop()
	return q
}

func batch(n int) []sdktrace.ReadOnlySpan {
	return tracetest.SpanStubs(make([]tracetest.SpanStub, n)).Snapshots()
}

// TestSpanQueueBackoff: a failed export drops its batch and starts a
// backoff during which batches are dropped without reaching the exporter
// (nothing encoded); when the backoff ends (down cleared, as the retry
// timer does) the next batch is tried, a failure doubles the wait up to
// maxBackoff, and a success ends it.
func TestSpanQueueBackoff(t *testing.T) {
	exp := &fakeSpanExporter{}
	q := loopless(exp)
	steps := []struct {
		name          string
		err           error
		retryEnded    bool // the retry timer fired before this batch
		wantCalls     int
		wantBackoff   time.Duration
		wantDown      bool
		wantFailed    uint64 // cumulative spans dropped: export failed
		wantBackedOff uint64 // cumulative spans dropped: backoff
		wantSent      uint64
	}{
		{name: "collector fails", err: errCollector, wantCalls: 1, wantBackoff: minBackoff, wantDown: true, wantFailed: 4},
		{name: "backing off: not exported", err: errCollector, wantCalls: 1, wantBackoff: minBackoff, wantDown: true, wantFailed: 4, wantBackedOff: 4},
		{name: "still backing off", wantCalls: 1, wantBackoff: minBackoff, wantDown: true, wantFailed: 4, wantBackedOff: 8},
		{name: "probe fails: twice the wait", err: errCollector, retryEnded: true, wantCalls: 2, wantBackoff: 2 * minBackoff, wantDown: true, wantFailed: 8, wantBackedOff: 8},
		{name: "probe succeeds: backoff over", retryEnded: true, wantCalls: 3, wantFailed: 8, wantBackedOff: 8, wantSent: 4},
		{name: "exports as usual", wantCalls: 4, wantFailed: 8, wantBackedOff: 8, wantSent: 8},
	}
	for _, s := range steps {
		exp.err = s.err
		if s.retryEnded {
			q.down.Store(false)
		}
		if left := q.export(batch(4)); len(left) != 0 {
			t.Fatalf("%s: %d spans left in the batch", s.name, len(left))
		}
		if exp.calls != s.wantCalls || q.backoff != s.wantBackoff || q.down.Load() != s.wantDown ||
			q.droppedFailed.Load() != s.wantFailed || q.droppedBackoff.Load() != s.wantBackedOff || q.exported.Load() != s.wantSent {
			t.Fatalf("%s: calls %d backoff %v down %v failed %d backoff-dropped %d exported %d", s.name, exp.calls, q.backoff,
				q.down.Load(), q.droppedFailed.Load(), q.droppedBackoff.Load(), q.exported.Load())
		}
	}
}

// TestBackoffBounded: consecutive failures double the wait up to maxBackoff.
func TestBackoffBounded(t *testing.T) {
	q := loopless(&fakeSpanExporter{})
	for _, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, maxBackoff, maxBackoff} {
		q.backOff()
		if q.backoff != want {
			t.Fatalf("backoff %v, want %v", q.backoff, want)
		}
	}
}

// TestBackoffSampler: while the queue backs off, a span the sampler would
// keep is not recorded and is counted as dropped; one it would not keep
// is not counted.
func TestBackoffSampler(t *testing.T) {
	for _, c := range []struct {
		name      string
		inner     sdktrace.Sampler
		down      bool
		want      sdktrace.SamplingDecision
		wantCount uint64
	}{
		{"collector up", sdktrace.AlwaysSample(), false, sdktrace.RecordAndSample, 0},
		{"backing off", sdktrace.AlwaysSample(), true, sdktrace.Drop, 1},
		{"not sampled anyway", sdktrace.NeverSample(), true, sdktrace.Drop, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := loopless(&fakeSpanExporter{})
			q.down.Store(c.down)
			s := backoffSampler{Sampler: c.inner, q: q}
			r := s.ShouldSample(sdktrace.SamplingParameters{ParentContext: context.Background(), TraceID: trace.TraceID{1}, Name: "s"})
			if r.Decision != c.want || q.droppedBackoff.Load() != c.wantCount {
				t.Fatalf("decision %v, %d counted; want %v, %d", r.Decision, q.droppedBackoff.Load(), c.want, c.wantCount)
			}
		})
	}
}

// fakeMetricExporter counts export calls and fails while err is set.
type fakeMetricExporter struct {
	sdkmetric.Exporter
	calls int
	err   error
}

func (f *fakeMetricExporter) Export(context.Context, *metricdata.ResourceMetrics) error {
	f.calls++
	return f.err
}

// TestMetricExportBackoff: after a failed metric export the next ones are
// skipped (not encoded, not counted as failures) until the backoff ends;
// a failure then doubles it and a success ends it.
func TestMetricExportBackoff(t *testing.T) {
	inner := &fakeMetricExporter{}
	tel := &Telemetry{}
	e := &countingMetricExporter{Exporter: inner, t: tel}
	for _, s := range []struct {
		name        string
		err         error
		retryEnded  bool
		wantErr     error
		wantCalls   int
		wantFails   uint64
		wantBackoff time.Duration
	}{
		{name: "collector fails", err: errCollector, wantErr: errCollector, wantCalls: 1, wantFails: 1, wantBackoff: minBackoff},
		{name: "backing off: skipped", err: errCollector, wantErr: errMetricsBackoff, wantCalls: 1, wantFails: 1, wantBackoff: minBackoff},
		{name: "retry fails", err: errCollector, retryEnded: true, wantErr: errCollector, wantCalls: 2, wantFails: 2, wantBackoff: 2 * minBackoff},
		{name: "retry succeeds", retryEnded: true, wantCalls: 3, wantFails: 2},
		{name: "exports as usual", wantCalls: 4, wantFails: 2},
	} {
		inner.err = s.err
		if s.retryEnded {
			e.retryAt.Store(0)
		}
		err := e.Export(context.Background(), &metricdata.ResourceMetrics{})
		if !errors.Is(err, s.wantErr) || inner.calls != s.wantCalls ||
			tel.metricFailures.Load() != s.wantFails || time.Duration(e.backoff.Load()) != s.wantBackoff {
			t.Fatalf("%s: err %v calls %d failures %d backoff %v", s.name, err, inner.calls, tel.metricFailures.Load(), time.Duration(e.backoff.Load()))
		}
	}
}
