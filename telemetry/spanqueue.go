package telemetry

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// spanQueue is a span processor with a bounded queue that never blocks
// the span's end: a full queue drops the span and counts it. One goroutine
// exports batches, each within the export timeout; a batch that fails is
// dropped and counted. (The SDK's batch processor also drops when full
// but does not say how many.)
type spanQueue struct {
	exp     sdktrace.SpanExporter
	q       chan sdktrace.ReadOnlySpan
	batch   int
	timeout time.Duration

	flushReq chan chan struct{}
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once

	exported, droppedFull, droppedFailed, failures atomic.Uint64
}

// flushInterval is how long a span waits for a batch to fill.
const flushInterval = time.Second

func newSpanQueue(exp sdktrace.SpanExporter, size, batch int, timeout time.Duration) *spanQueue {
	q := &spanQueue{exp: exp, q: make(chan sdktrace.ReadOnlySpan, size), batch: batch, timeout: timeout,
		flushReq: make(chan chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	go q.loop()
	return q
}

func (q *spanQueue) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues a sampled span, or drops it if the queue is full.
func (q *spanQueue) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	select {
	case q.q <- s:
	default:
		q.droppedFull.Add(1)
	}
}

func (q *spanQueue) loop() {
	defer close(q.done)
	buf := make([]sdktrace.ReadOnlySpan, 0, q.batch)
	tick := time.NewTicker(flushInterval)
	defer tick.Stop()
	for {
		select {
		case s := <-q.q:
			buf = append(buf, s)
			if len(buf) >= q.batch {
				buf = q.export(buf)
			}
		case <-tick.C:
			buf = q.export(buf)
		case ack := <-q.flushReq:
			buf = q.export(q.drain(buf))
			close(ack)
		case <-q.stop:
			q.export(q.drain(buf))
			return
		}
	}
}

// drain appends what is queued now to buf, exporting full batches.
func (q *spanQueue) drain(buf []sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	for {
		select {
		case s := <-q.q:
			buf = append(buf, s)
			if len(buf) >= q.batch {
				buf = q.export(buf)
			}
		default:
			return buf
		}
	}
}

func (q *spanQueue) export(buf []sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	if len(buf) == 0 {
		return buf
	}
	ctx, cancel := context.WithTimeout(context.Background(), q.timeout)
	err := q.exp.ExportSpans(ctx, buf)
	cancel()
	if err != nil {
		q.failures.Add(1)
		q.droppedFailed.Add(uint64(len(buf)))
	} else {
		q.exported.Add(uint64(len(buf)))
	}
	clear(buf)
	return buf[:0]
}

// ForceFlush exports what is queued, waiting at most until ctx ends.
func (q *spanQueue) ForceFlush(ctx context.Context) error {
	ack := make(chan struct{})
	select {
	case q.flushReq <- ack:
	case <-q.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown exports what is queued and closes the exporter, giving up when
// ctx ends (the last export is bounded by the export timeout anyway).
func (q *spanQueue) Shutdown(ctx context.Context) error {
	q.stopOnce.Do(func() { close(q.stop) })
	select {
	case <-q.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return q.exp.Shutdown(ctx)
}

// countingMetricExporter counts failed metric exports.
type countingMetricExporter struct {
	sdkmetric.Exporter
	t *Telemetry
}

func (e *countingMetricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	err := e.Exporter.Export(ctx, rm)
	if err != nil {
		e.t.metricFailures.Add(1)
	}
	return err
}

// instrument registers the telemetry's own counters: what the span queue
// exported and dropped, and failed exports.
func (t *Telemetry) instrument() error {
	meter := t.MeterProvider.Meter("github.com/pgequiv/pgequiv/telemetry")
	_, err := meter.Int64ObservableCounter("pgequiv.telemetry.spans.dropped",
		metric.WithDescription("Spans not exported, by reason: queue_full (the bounded queue was full) or export_failed (the collector did not take the batch in time)"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			var full, failed uint64
			if q := t.queue; q != nil {
				full, failed = q.droppedFull.Load(), q.droppedFailed.Load()
			}
			o.Observe(int64(full), metric.WithAttributes(attribute.String("reason", "queue_full")))
			o.Observe(int64(failed), metric.WithAttributes(attribute.String("reason", "export_failed")))
			return nil
		}))
	if err != nil {
		return err
	}
	_, err = meter.Int64ObservableCounter("pgequiv.telemetry.spans.exported",
		metric.WithDescription("Spans the collector accepted"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			var n uint64
			if q := t.queue; q != nil {
				n = q.exported.Load()
			}
			o.Observe(int64(n))
			return nil
		}))
	if err != nil {
		return err
	}
	_, err = meter.Int64ObservableCounter("pgequiv.telemetry.export.failures",
		metric.WithDescription("OTLP exports that failed, by signal"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			var spans uint64
			if q := t.queue; q != nil {
				spans = q.failures.Load()
			}
			o.Observe(int64(spans), metric.WithAttributes(attribute.String("signal", "traces")))
			o.Observe(int64(t.metricFailures.Load()), metric.WithAttributes(attribute.String("signal", "metrics")))
			return nil
		}))
	return err
}

// Dropped returns the spans dropped so far: queue full, export failed.
func (t *Telemetry) Dropped() (queueFull, exportFailed uint64) {
	if t.queue == nil {
		return 0, 0
	}
	return t.queue.droppedFull.Load(), t.queue.droppedFailed.Load()
}
