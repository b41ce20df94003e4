package telemetry

import (
	"context"
	"errors"
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
//
// A failed export starts a backoff: until it ends, batches are dropped
// without being encoded or sent, and the sampler (backoffSampler) records
// no new span, so a collector that is gone costs neither the exporter nor
// the judge's span path anything. The first failure waits minBackoff, each
// failure after the next try doubles the wait up to maxBackoff, and a
// success ends it.
type spanQueue struct {
	exp     sdktrace.SpanExporter
	q       chan sdktrace.ReadOnlySpan
	batch   int
	timeout time.Duration

	flushReq chan chan struct{}
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once

	// down is set while backing off (read by the sampler); backoff and
	// retry belong to the loop goroutine.
	down    atomic.Bool
	backoff time.Duration
	retry   *time.Timer

	exported, droppedFull, droppedFailed, droppedBackoff, failures atomic.Uint64
}

// flushInterval is how long a span waits for a batch to fill.
const flushInterval = time.Second

// The backoff after failed exports (see spanQueue).
const (
	minBackoff = time.Second
	maxBackoff = 30 * time.Second
)

func newSpanQueue(exp sdktrace.SpanExporter, size, batch int, timeout time.Duration) *spanQueue {
	q := &spanQueue{exp: exp, q: make(chan sdktrace.ReadOnlySpan, size), batch: batch, timeout: timeout,
		flushReq: make(chan chan struct{}), stop: make(chan struct{}), done: make(chan struct{}),
		retry: time.NewTimer(time.Hour)}
	q.retry.Stop()
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
	defer q.retry.Stop()
	for {
		select {
		case <-q.retry.C:
			q.down.Store(false) // the next batch is the probe
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
	if q.down.Load() {
		q.droppedBackoff.Add(uint64(len(buf)))
		clear(buf)
		return buf[:0]
	}
	ctx, cancel := context.WithTimeout(context.Background(), q.timeout)
	err := q.exp.ExportSpans(ctx, buf)
	cancel()
	if err != nil {
		q.failures.Add(1)
		q.droppedFailed.Add(uint64(len(buf)))
		q.backOff()
	} else {
		q.exported.Add(uint64(len(buf)))
		q.backoff = 0
	}
	clear(buf)
	return buf[:0]
}

// backOff starts the wait after a failed export, twice the last one.
func (q *spanQueue) backOff() {
	q.backoff = min(max(2*q.backoff, minBackoff), maxBackoff)
	q.down.Store(true)
	q.retry.Reset(q.backoff)
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

// backoffSampler records no span while the span queue backs off from a
// failed collector: such a span could only be dropped, and recording it
// (its attributes, the query's redaction) costs the judge's path. A span
// the sampler would have kept is counted as dropped for backoff.
type backoffSampler struct {
	sdktrace.Sampler
	q *spanQueue
}

func (s backoffSampler) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	r := s.Sampler.ShouldSample(p)
	if r.Decision == sdktrace.RecordAndSample && s.q.down.Load() {
		s.q.droppedBackoff.Add(1)
		r.Decision, r.Attributes = sdktrace.Drop, nil
	}
	return r
}

func (s backoffSampler) Description() string {
	return "BackoffWhenCollectorFails{" + s.Sampler.Description() + "}"
}

// errMetricsBackoff is returned for a metric export skipped during backoff.
var errMetricsBackoff = errors.New("telemetry: metric export skipped: backing off after a failed export")

// countingMetricExporter counts failed metric exports and backs off after
// one as the span queue does (minBackoff doubling to maxBackoff): a
// skipped export is not encoded or sent, and loses nothing, since the
// metrics are cumulative and the next export carries the totals.
type countingMetricExporter struct {
	sdkmetric.Exporter
	t *Telemetry

	// retryAt (unix ns) and backoff (ns): the reader's goroutine and a
	// flush may export at once.
	retryAt, backoff atomic.Int64
}

func (e *countingMetricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	now := time.Now()
	if now.UnixNano() < e.retryAt.Load() {
		return errMetricsBackoff
	}
	err := e.Exporter.Export(ctx, rm)
	if err != nil {
		e.t.metricFailures.Add(1)
		b := min(max(2*time.Duration(e.backoff.Load()), minBackoff), maxBackoff)
		e.backoff.Store(int64(b))
		e.retryAt.Store(now.Add(b).UnixNano())
		return err
	}
	e.backoff.Store(0)
	return nil
}

// instrument registers the telemetry's own counters: what the span queue
// exported and dropped, and failed exports.
func (t *Telemetry) instrument() error {
	meter := t.MeterProvider.Meter("github.com/pgequiv/pgequiv/telemetry")
	_, err := meter.Int64ObservableCounter("pgequiv.telemetry.spans.dropped",
		metric.WithDescription("Spans not exported, by reason: queue_full (the bounded queue was full), export_failed (the collector did not take the batch in time) or backoff (dropped or not recorded while backing off after a failed export)"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			d := t.Dropped()
			o.Observe(int64(d.QueueFull), metric.WithAttributes(attribute.String("reason", "queue_full")))
			o.Observe(int64(d.ExportFailed), metric.WithAttributes(attribute.String("reason", "export_failed")))
			o.Observe(int64(d.Backoff), metric.WithAttributes(attribute.String("reason", "backoff")))
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

// Drops counts the spans dropped so far, by reason.
type Drops struct {
	QueueFull    uint64 // the queue was full
	ExportFailed uint64 // in a batch the collector did not take
	Backoff      uint64 // dropped or not recorded while backing off
}

// Dropped returns the spans dropped so far.
func (t *Telemetry) Dropped() Drops {
	if t.queue == nil {
		return Drops{}
	}
	return Drops{QueueFull: t.queue.droppedFull.Load(), ExportFailed: t.queue.droppedFailed.Load(), Backoff: t.queue.droppedBackoff.Load()}
}
