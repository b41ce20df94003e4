package judging

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/pgequiv/pgequiv/proxy/tag"
)

// traceParent returns the application's span context from the query's
// sqlcommenter comment (traceparent, tracestate: W3C Trace Context, as
// sqlcommenter libraries write them), or an invalid one.
func traceParent(sql string) trace.SpanContext {
	if !strings.Contains(sql, "traceparent") {
		return trace.SpanContext{}
	}
	cm, ok, _ := tag.FindComment(sql)
	if !ok {
		return trace.SpanContext{}
	}
	return commentTraceParent(cm)
}

// commentTraceParent is traceParent of a comment already read.
func commentTraceParent(cm *tag.Comment) trace.SpanContext {
	_, tp := cm.Get("traceparent")
	if !tp {
		return trace.SpanContext{}
	}
	carrier := propagation.MapCarrier{}
	for _, k := range []string{"traceparent", "tracestate"} {
		if v, has := cm.Get(k); has {
			carrier[k] = v
		}
	}
	return trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), carrier))
}

// startJudgeSpan starts the pgequiv.judge span, a child of the
// application's span when the query carried a traceparent. Attribute
// names follow the OpenTelemetry database semantic conventions; the
// query text has its literals redacted unless log.literals is on.
func (j *Judging) startJudgeSpan(ctx context.Context, job *judgeJob) (context.Context, trace.Span) {
	if job.parent.IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, job.parent)
	}
	ctx, span := j.tracer.Start(ctx, "pgequiv.judge", trace.WithSpanKind(trace.SpanKindInternal))
	if !span.IsRecording() {
		return ctx, span // telemetry off or not sampled: no redaction to pay for
	}
	span.SetAttributes(
		attribute.String("db.system.name", "postgresql"),
		attribute.String("db.namespace", job.sess.Database),
		attribute.String("db.operation.name", operationName(job.candidate)),
		attribute.String("db.query.text", j.storeSQL(job.set, job.candidate, job.full)),
		attribute.String("pgequiv.reference_id", job.ref.ID),
		attribute.String("pgequiv.reference_source", string(job.ref.Source)),
		attribute.String("pgequiv.mode", string(job.mode)),
	)
	return ctx, span
}

// operationName is the statement's first keyword, upper-cased (SELECT,
// WITH, ...), as db.operation.name wants it.
func operationName(sql string) string {
	f := strings.Fields(strings.TrimLeft(sql, " \t\r\n("))
	if len(f) == 0 {
		return ""
	}
	w := f[0]
	if i := strings.IndexAny(w, "(;/"); i > 0 {
		w = w[:i]
	}
	return strings.ToUpper(w)
}

// inlineReference is the reference_id metric attribute of a reference
// given as SQL (a comment or session setting) rather than a catalog id:
// one fixed value keeps the metric's cardinality bounded by the catalog.
const inlineReference = "inline"

// verdictAttrs are the verdict counter's and latency histogram's
// attributes: label, mode, and the reference's catalog id (or inline,
// or none when the tag could not be resolved).
func verdictAttrs(job *judgeJob, label string) metric.MeasurementOption {
	ref := job.ref.ID
	switch {
	case ref != "":
	case job.ref.SQL != "":
		ref = inlineReference
	default:
		ref = "none"
	}
	key := verdictAttrKey{label: label, mode: job.mode, ref: ref}
	if o, ok := verdictAttrSets.Load(key); ok {
		return o.(metric.MeasurementOption)
	}
	o := metric.WithAttributes(attribute.String("label", label), attribute.String("mode", string(job.mode)),
		attribute.String("reference_id", ref))
	if verdictAttrCount.Load() < maxVerdictAttrSets {
		if _, loaded := verdictAttrSets.LoadOrStore(key, o); !loaded {
			verdictAttrCount.Add(1)
		}
	}
	return o
}

// verdictAttrSets keeps the attribute sets verdictAttrs built: building
// one (sorting, hashing) cost more than the rest of recording a verdict
// answered from the proof cache. The combinations are few (labels, modes,
// catalog ids); maxVerdictAttrSets bounds them all the same.
var (
	verdictAttrSets  sync.Map // verdictAttrKey -> metric.MeasurementOption
	verdictAttrCount atomic.Int64
)

const maxVerdictAttrSets = 4096

type verdictAttrKey struct {
	label string
	mode  JudgeMode
	ref   string
}
