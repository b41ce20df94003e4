package judging

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// TestJudgeSpanParent: a traceparent in the query's sqlcommenter comment
// makes pgequiv.judge a child of the application's span, with the
// database semantic-convention attributes and the query's literals
// redacted; verdicts carry a bounded reference_id.
func TestJudgeSpanParent(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	sql := "SELECT count(*) FROM t WHERE v = 'secret' /*pgequiv_ref='SELECT%20count(*)%20FROM%20t',traceparent='" + tp + "',tracestate='app=x'*/"
	parent := traceParent(sql)
	if !parent.IsValid() || parent.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" ||
		parent.SpanID().String() != "00f067aa0ba902b7" || !parent.IsSampled() || parent.TraceState().Get("app") != "x" {
		t.Fatalf("traceParent: %+v", parent)
	}
	for _, bad := range []string{"SELECT 1", "SELECT 1 /*traceparent='junk'*/", "SELECT 1 /* traceparent */"} {
		if traceParent(bad).IsValid() {
			t.Errorf("traceParent(%q) is valid", bad)
		}
	}

	rec := tracetest.NewSpanRecorder()
	j := &Judging{tracer: sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)).Tracer("test")}
	set := &JudgeSettings{}
	job := &judgeJob{set: set, sess: proxy.Session{Database: "app"}, ref: tag.Reference{SQL: "SELECT count(*) FROM t", Source: tag.FromComment},
		candidate: tag.StripComment(sql), mode: ModeAnnotate, parent: parent}
	_, span := j.startJudgeSpan(context.Background(), job)
	span.End()
	got := rec.Ended()
	if len(got) != 1 {
		t.Fatalf("%d spans", len(got))
	}
	s := got[0]
	if s.Parent().SpanID() != parent.SpanID() || s.SpanContext().TraceID() != parent.TraceID() || !s.Parent().IsRemote() {
		t.Fatalf("span parent %v trace %v, want %v", s.Parent().SpanID(), s.SpanContext().TraceID(), parent)
	}
	attrs := map[string]string{}
	for _, kv := range s.Attributes() {
		attrs[string(kv.Key)] = kv.Value.Emit()
	}
	if attrs["db.system.name"] != "postgresql" || attrs["db.namespace"] != "app" || attrs["db.operation.name"] != "SELECT" ||
		attrs["pgequiv.reference_source"] != "comment" || attrs["pgequiv.mode"] != "annotate" {
		t.Errorf("attributes %v", attrs)
	}
	if q := attrs["db.query.text"]; strings.Contains(q, "secret") || !strings.Contains(q, "count") {
		t.Errorf("db.query.text %q: want the query with its literals redacted", q)
	}

	// Without a traceparent the span is a root.
	job.parent = trace.SpanContext{}
	_, span = j.startJudgeSpan(context.Background(), job)
	span.End()
	if s := rec.Ended()[1]; s.Parent().IsValid() {
		t.Errorf("span without traceparent has parent %v", s.Parent())
	}

	for _, tc := range []struct {
		ref  tag.Reference
		want string
	}{
		{tag.Reference{SQL: "SELECT 1", ID: "orders_by_day", Source: tag.FromCatalogMatch}, "orders_by_day"},
		{tag.Reference{SQL: "SELECT 1", Source: tag.FromSession}, inlineReference},
		{tag.Reference{}, "none"},
	} {
		set := metric.NewAddConfig([]metric.AddOption{verdictAttrs(&judgeJob{ref: tc.ref, mode: ModeLog}, "equivalent")}).Attributes()
		if v, _ := set.Value("reference_id"); v.AsString() != tc.want {
			t.Errorf("reference %+v: reference_id %q, want %q", tc.ref, v.AsString(), tc.want)
		}
		if v, _ := set.Value("label"); v.AsString() != "equivalent" || set.Len() != 3 {
			t.Errorf("verdict attributes %v", set.ToSlice())
		}
	}
}

// BenchmarkJudgeSpan: the cost of the judge span per tagged query, with
// telemetry off (no-op tracer) and on (the SDK, the span recorded).
func BenchmarkJudgeSpan(b *testing.B) {
	sql := "SELECT count(*) FROM t WHERE v = 'x' /*pgequiv_ref='SELECT%20count(*)%20FROM%20t',traceparent='00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'*/"
	job := &judgeJob{set: &JudgeSettings{}, sess: proxy.Session{Database: "app"}, ref: tag.Reference{SQL: "SELECT count(*) FROM t", Source: tag.FromComment},
		candidate: tag.StripComment(sql), mode: ModeAnnotate}
	for _, tc := range []struct {
		name   string
		tracer trace.Tracer
	}{
		{"off", noop.NewTracerProvider().Tracer("b")},
		{"on", sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(nopProcessor{})).Tracer("b")},
	} {
		b.Run(tc.name, func(b *testing.B) {
			j := &Judging{tracer: tc.tracer}
			b.ReportAllocs()
			for b.Loop() {
				job.parent = traceParent(sql)
				_, span := j.startJudgeSpan(context.Background(), job)
				span.End()
			}
		})
	}
}

type nopProcessor struct{ sdktrace.SpanProcessor }

func (nopProcessor) OnEnd(sdktrace.ReadOnlySpan)                     {}
func (nopProcessor) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
