package judging

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	mnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
	tnoop "go.opentelemetry.io/otel/trace/noop"
)

// recorder is a minimal tracer and meter provider that keeps what the
// judge reports (the otel SDK is not a dependency).
type recorder struct {
	tnoop.TracerProvider
	mu       sync.Mutex
	spans    []*recSpan
	counts   map[string]int64     // "instrument label" → sum
	observed map[string][]float64 // histogram values by instrument
	bounds   map[string][]float64 // histogram bucket bounds by instrument
	gauges   []metric.Int64Callback
}

// collect runs the observable instruments' callbacks and returns the
// values by "cache event" attributes.
func (r *recorder) collect(t *testing.T) map[string]int64 {
	r.mu.Lock()
	cbs := append([]metric.Int64Callback(nil), r.gauges...)
	r.mu.Unlock()
	obs := &recObserver{values: map[string]int64{}}
	for _, cb := range cbs {
		if err := cb(context.Background(), obs); err != nil {
			t.Fatal(err)
		}
	}
	return obs.values
}

type recObserver struct {
	metric.Int64Observer
	values map[string]int64
}

func (o *recObserver) Observe(v int64, opts ...metric.ObserveOption) {
	set := metric.NewObserveConfig(opts).Attributes()
	c, _ := set.Value("cache")
	e, _ := set.Value("event")
	o.values[c.AsString()+" "+e.AsString()] = v
}

func newRecorder() *recorder {
	return &recorder{counts: map[string]int64{}, observed: map[string][]float64{}, bounds: map[string][]float64{}}
}

func (r *recorder) Tracer(string, ...trace.TracerOption) trace.Tracer { return recTracer{r: r} }

type recTracer struct {
	tnoop.Tracer
	r *recorder
}

func (t recTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	s := &recSpan{name: name, attrs: map[attribute.Key]attribute.Value{}, parent: trace.SpanContextFromContext(ctx)}
	cfg := trace.NewSpanStartConfig(opts...)
	for _, kv := range cfg.Attributes() {
		s.attrs[kv.Key] = kv.Value
	}
	t.r.mu.Lock()
	t.r.spans = append(t.r.spans, s)
	t.r.mu.Unlock()
	return ctx, s
}

type recSpan struct {
	tnoop.Span
	name   string
	parent trace.SpanContext // the span the context held at Start
	mu     sync.Mutex
	attrs  map[attribute.Key]attribute.Value
	ended  bool
}

func (s *recSpan) SetAttributes(kv ...attribute.KeyValue) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range kv {
		s.attrs[a.Key] = a.Value
	}
}

// IsRecording: the recorder keeps every span's attributes.
func (s *recSpan) IsRecording() bool { return true }

func (s *recSpan) End(...trace.SpanEndOption) {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
}

type recMeterProvider struct {
	mnoop.MeterProvider
	r *recorder
}

func (p recMeterProvider) Meter(string, ...metric.MeterOption) metric.Meter { return recMeter{r: p.r} }

type recMeter struct {
	mnoop.Meter
	r *recorder
}

func (m recMeter) Int64Counter(name string, _ ...metric.Int64CounterOption) (metric.Int64Counter, error) {
	return recCounter{r: m.r, name: name}, nil
}

func (m recMeter) Float64Histogram(name string, opts ...metric.Float64HistogramOption) (metric.Float64Histogram, error) {
	cfg := metric.NewFloat64HistogramConfig(opts...)
	m.r.mu.Lock()
	m.r.bounds[name] = cfg.ExplicitBucketBoundaries()
	m.r.mu.Unlock()
	return recHistogram{r: m.r, name: name}, nil
}

func (m recMeter) Int64ObservableCounter(_ string, opts ...metric.Int64ObservableCounterOption) (metric.Int64ObservableCounter, error) {
	cfg := metric.NewInt64ObservableCounterConfig(opts...)
	m.r.mu.Lock()
	m.r.gauges = append(m.r.gauges, cfg.Callbacks()...)
	m.r.mu.Unlock()
	return mnoop.Int64ObservableCounter{}, nil
}

type recCounter struct {
	mnoop.Int64Counter
	r    *recorder
	name string
}

func (c recCounter) Add(_ context.Context, n int64, opts ...metric.AddOption) {
	set := metric.NewAddConfig(opts).Attributes()
	label, _ := set.Value("label")
	c.r.mu.Lock()
	c.r.counts[c.name+" "+label.AsString()] += n
	c.r.mu.Unlock()
}

type recHistogram struct {
	mnoop.Float64Histogram
	r    *recorder
	name string
}

func (h recHistogram) Record(_ context.Context, v float64, _ ...metric.RecordOption) {
	h.r.mu.Lock()
	h.r.observed[h.name] = append(h.r.observed[h.name], v)
	h.r.mu.Unlock()
}

// TestJudgeTelemetry: one span per judged query with label, score and
// reference id; a verdict counter by label and a latency histogram.
func TestJudgeTelemetry(t *testing.T) {
	rec := newRecorder()
	set := annotateSettings(t)
	set.Mode = ModeLog
	e := startJudgeProxy(t, set, JudgingOptions{TracerProvider: rec, MeterProvider: recMeterProvider{r: rec}})
	ctx := testCtx(t, 60*time.Second)
	conn, _ := e.connectNotices(t, ctx, kennelDB)
	for _, q := range []string{withComment(countOwner, countStar), withComment("SELECT count(*), 2 FROM dogs", countStar), "SELECT 1"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	e.j.Wait()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.spans) != 2 {
		t.Fatalf("%d spans, want 2 (untagged queries are not judged)", len(rec.spans))
	}
	// The two judgements run concurrently in log mode; take the span of
	// the equivalent pair, whichever ended first.
	s := rec.spans[0]
	if s.attrs["pgequiv.label"].AsString() != "equivalent" {
		s = rec.spans[1]
	}
	if s.name != "pgequiv.judge" || !s.ended || s.attrs["pgequiv.label"].AsString() != "equivalent" ||
		s.attrs["pgequiv.score"].AsFloat64() < 0.9 || s.attrs["pgequiv.reference_source"].AsString() != "comment" {
		t.Errorf("span %s ended=%v attrs %v", s.name, s.ended, s.attrs)
	}
	if _, ok := s.attrs["pgequiv.reference_id"]; !ok {
		t.Error("span lacks pgequiv.reference_id")
	}
	if rec.counts["pgequiv.verdicts equivalent"] != 1 || rec.counts["pgequiv.verdicts not_equivalent"] != 1 {
		t.Errorf("counters %v", rec.counts)
	}
	if h := rec.observed["pgequiv.judge.duration"]; len(h) != 2 || h[0] <= 0 {
		t.Errorf("latency histogram %v", h)
	}
	// The judgements above take well under a second: without explicit
	// bounds the SDK's default ones (0, 5, 10, ...) put them all in one
	// bucket, and quantiles read seconds.
	if b := rec.bounds["pgequiv.judge.duration"]; len(b) == 0 || b[0] > 0.0001 || !slices.Contains(b, 0.001) || b[len(b)-1] < 5 {
		t.Errorf("latency histogram bounds %v: want sub-millisecond to seconds", b)
	}
	rec.mu.Unlock()
	// One reference, two candidates: four lookups, each candidate
	// prepared once. The reference is found again for the second
	// candidate, unless the two judgements (concurrent in log mode) both
	// looked it up before either stored it.
	if c := rec.collect(t); c["queries miss"]+c["queries hit"] != 4 || c["queries miss"] < 3 || c["pairs miss"] != 0 {
		t.Errorf("cache events %v", c)
	}
	rec.mu.Lock()
}
