package judging

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/judgepool"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// JudgeMode is what the proxy does with a tagged query.
type JudgeMode string

// Judge modes.
const (
	// ModeOff: nothing is judged; pgequiv settings reach the server.
	ModeOff JudgeMode = "off"
	// ModeAnnotate forwards at once and judges alongside; the verdict is a
	// NOTICE before the statement's ReadyForQuery.
	ModeAnnotate JudgeMode = "annotate"
	// ModeLog forwards at once; each verdict is a JSON log line.
	ModeLog JudgeMode = "log"
	// ModeEnforce judges first and refuses what does not pass.
	ModeEnforce JudgeMode = "enforce"
)

// Valid reports whether m is one of the modes.
func (m JudgeMode) Valid() bool {
	switch m {
	case ModeOff, ModeAnnotate, ModeLog, ModeEnforce:
		return true
	}
	return false
}

// SQLSTATEs of enforce-mode refusals (class PG: implementation-defined).
const (
	// SQLStateNotEquivalent refuses a query judged not_equivalent (or
	// equivalent only under assumptions that are not accepted).
	SQLStateNotEquivalent = "PGQ01"
	// SQLStateUnverified refuses a query whose equivalence could not be
	// established (unknown, timed out, or not judgeable) when
	// enforce_unknown is set.
	SQLStateUnverified = "PGQ02"
)

// JudgeSettings configure a Judging observer; Judging.Reload replaces
// them as a whole.
type JudgeSettings struct {
	// Mode is the default for tagged queries; a catalog entry's own mode
	// overrides it. ModeOff turns judging off altogether.
	Mode JudgeMode
	// VerdictTimeout bounds the wait for one verdict (default 2s), from
	// the query's arrival to its answer: the judge stops a little earlier
	// (judgeDeadline) to leave time to deliver it. In annotate mode the
	// ReadyForQuery waits at most this long after the query arrived.
	VerdictTimeout time.Duration
	// EnforceUnknown refuses, in enforce mode, queries whose verdict is
	// unknown, timed out or failed.
	EnforceUnknown bool
	// EnforceSideEffects is what enforce mode does with a statement that
	// has a reference but side effects (data change, DDL, DO, CALL, COPY,
	// SELECT INTO, data-modifying WITH): refuse (default, PGQ02) or
	// forward unjudged.
	EnforceSideEffects SideEffectsPolicy
	// Options are the judge's options; Options.AcceptAssumptions decides
	// which equivalent_under_assumptions verdicts pass.
	Options equivalence.Options
	// LogLiterals keeps literals in logged SQL and differences.
	LogLiterals bool
	// Catalog holds references by id and by fingerprint; may be nil.
	Catalog *tag.Catalog
	// Schemas says where each database's schema comes from.
	Schemas SchemaSettings
	// RecentVerdicts bounds the admin console's verdict list (default 256).
	RecentVerdicts int
}

func (s JudgeSettings) withDefaults() (JudgeSettings, error) {
	if s.Mode == "" {
		s.Mode = ModeOff
	}
	if !s.Mode.Valid() {
		return s, fmt.Errorf("proxy: unknown judge mode %q", s.Mode)
	}
	if s.VerdictTimeout <= 0 {
		s.VerdictTimeout = config.DefaultVerdictTimeout
	}
	switch s.EnforceSideEffects {
	case "":
		s.EnforceSideEffects = SideEffectsRefuse
	case SideEffectsRefuse, SideEffectsForward:
	default:
		return s, fmt.Errorf("proxy: enforce_side_effects %q is not refuse or forward", s.EnforceSideEffects)
	}
	if s.RecentVerdicts <= 0 {
		s.RecentVerdicts = config.DefaultRecentVerdicts
	}
	if s.Schemas.Introspect != nil && s.Schemas.Introspect.Timeout <= 0 {
		in := *s.Schemas.Introspect
		in.Timeout = config.DefaultIntrospectTimeout
		s.Schemas.Introspect = &in
	}
	return s, nil
}

// JudgingOptions are a Judging observer's fixed dependencies.
type JudgingOptions struct {
	// Logger gets operational messages (late verdicts, schema errors);
	// default slog.Default().
	Logger *slog.Logger
	// VerdictLog gets one JSON line per verdict in log mode; default a
	// JSON handler on stderr.
	VerdictLog *slog.Logger
	// TracerProvider and MeterProvider default to the otel globals.
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// JudgerOptions size the judge's reference cache when Judger is nil.
	JudgerOptions equivalence.JudgerOptions
	// Judger judges; nil means in-process (judgepool.Local), which a Go
	// fatal error in the judge would end along with the proxy. A
	// judgepool.Pool isolates judgements in worker processes. The caller
	// closes it after the observer's last Wait.
	Judger judgepool.Backend
	// VerdictFile, if set, gets every verdict as a JSON line; the
	// verdicts it held when opened fill SHOW VERDICTS and SHOW
	// DIVERGENCES. The caller closes it after the observer's last Wait.
	VerdictFile *VerdictFile
	// ReadSlots bounds the statements read for judging at once; beyond
	// it a tagged statement waits, and is answered unread once it has
	// waited half its verdict timeout (admission.go). 0: one fewer than
	// GOMAXPROCS, at least one.
	ReadSlots int
}

// Judging is the QueryObserver that judges tagged queries: it consumes
// SET/RESET of pgequiv settings, resolves each query's reference
// (comment, session setting, catalog match), judges it against the
// database's schema and annotates, logs or enforces the verdict.
// JudgeDurationBuckets are the bounds, in seconds, of the judge latency
// histogram. A judgement takes from tens of microseconds (a cached or
// proved pair) to its budget (seconds, a search that ran out); the SDK's
// default bounds (0, 5, 10, 25, ... 10000) are for milliseconds and put
// every judgement in the first bucket, so a dashboard's quantiles read
// seconds where the truth is a fraction of a millisecond.
var JudgeDurationBuckets = []float64{
	0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
	0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
}

type Judging struct {
	judger  judgepool.Backend
	set     atomic.Pointer[JudgeSettings]
	log     *slog.Logger
	vlog    *slog.Logger
	schemas *schemaCache
	proofs  *proofCache
	shapes  *shapeMemo
	admit   *admission
	stats   judgeStats
	ring    verdictRing
	div     divergences
	vfile   *VerdictFile
	wg      sync.WaitGroup // background judgements

	knobs judgingKnobs
	// digestSeed keys the digests of clipped texts, digestKey the marks
	// of redacted literals (sqltext.go).
	digestSeed maphash.Seed
	digestKey  [32]byte

	tracer   trace.Tracer
	verdicts metric.Int64Counter
	latency  metric.Float64Histogram
}

// NewJudging returns a Judging observer with settings s.
func NewJudging(s JudgeSettings, o JudgingOptions) (*Judging, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	judger := o.Judger
	if judger == nil {
		local, err := judgepool.NewLocal(judgepool.LocalOptions{Judger: o.JudgerOptions, Logger: o.Logger, MeterProvider: o.MeterProvider})
		if err != nil {
			return nil, err
		}
		judger = local
	}
	if o.VerdictLog == nil {
		o.VerdictLog = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	if o.TracerProvider == nil {
		o.TracerProvider = otel.GetTracerProvider()
	}
	if o.MeterProvider == nil {
		o.MeterProvider = otel.GetMeterProvider()
	}
	const scope = "github.com/pgequiv/pgequiv/proxy"
	meter := o.MeterProvider.Meter(scope)
	j := &Judging{judger: judger, log: o.Logger, vlog: o.VerdictLog, vfile: o.VerdictFile, tracer: o.TracerProvider.Tracer(scope),
		digestSeed: maphash.MakeSeed(), digestKey: newLiteralKey()}
	j.schemas = newSchemaCache(j.log, &j.stats)
	j.proofs = newProofCache()
	j.shapes = newShapeMemo()
	j.admit = newAdmission(o.ReadSlots)
	var err error
	if j.verdicts, err = meter.Int64Counter("pgequiv.verdicts", metric.WithDescription("Verdicts on tagged queries, by label")); err != nil {
		return nil, err
	}
	if j.latency, err = meter.Float64Histogram("pgequiv.judge.duration", metric.WithUnit("s"),
		metric.WithDescription("Time to judge a tagged query, including schema loading"),
		metric.WithExplicitBucketBoundaries(JudgeDurationBuckets...)); err != nil {
		return nil, err
	}
	if _, err = meter.Int64ObservableCounter("pgequiv.judge.cache.events",
		metric.WithDescription("Judge cache lookups and evictions, by cache (queries: prepared references and candidates; pairs: GMN similarities) and event (hit, miss, eviction)"),
		metric.WithInt64Callback(j.observeCaches)); err != nil {
		return nil, err
	}
	if err := j.instrumentStats(meter); err != nil {
		return nil, err
	}
	if err := j.Reload(s); err != nil {
		return nil, err
	}
	if j.vfile != nil {
		recs, skipped := j.vfile.Loaded()
		for i := range recs {
			j.ring.add(recs[i])
			j.div.add(&recs[i])
		}
		if skipped > 0 {
			j.log.Warn("pgequiv: verdict log lines skipped (torn, over 1 MiB, or not JSON verdicts)", "lines", skipped)
		}
	}
	return j, nil
}

// Reload replaces the settings for every connection from its next
// statement on, and forgets introspected schemas so they are read again.
func (j *Judging) Reload(s JudgeSettings) error {
	s, err := s.withDefaults()
	if err != nil {
		return err
	}
	j.ring.resize(s.RecentVerdicts)
	j.set.Store(&s)
	j.schemas.invalidateAll()
	return nil
}

// Settings returns the settings in force.
func (j *Judging) Settings() JudgeSettings { return *j.set.Load() }

// Wait blocks until background judgements and schema loads have ended;
// each is bounded by its timeout.
func (j *Judging) Wait() {
	j.wg.Wait()
	j.schemas.wait()
}

// judgeConnState is a connection's judging state.
type judgeConnState struct {
	// ddl: the connection sent DDL; its next statement refreshes the
	// schema again (the DDL has run by then).
	ddl bool
	// bound caches verdicts on bound values (bind.go).
	bound *boundCache
	// prepared are the SQL-level prepared statements (prepared.go); set
	// when the session is made, never replaced.
	prepared *preparedStmts
	// schema is what may make the session's name resolution differ
	// (sessionschema.go); set when the session is made.
	schema *sessionSchema
}

// ObserveQuery implements QueryObserver.
func (j *Judging) ObserveQuery(ctx context.Context, ev *proxy.QueryEvent) proxy.Action {
	a := j.observeQuery(ctx, ev)
	if ev.Kind == proxy.KindParse && a.Bind == nil && a.Refuse == nil {
		if cs, ok := ev.Session.State.(*judgeSession); ok && cs.guc.active.Load() && cs.guc.current() != (tag.Session{}) {
			// Seen under a session reference, which found nothing to
			// judge in it: its Binds pass the gate (prepared.go,
			// gateBind). One prepared with no reference in force is
			// judged by none: gated under a later one.
			a.Bind = parseSeen
		}
	}
	return a
}

func (j *Judging) observeQuery(ctx context.Context, ev *proxy.QueryEvent) proxy.Action {
	// The budget counts from here: splitting and reading a statement's
	// tags come out of it too.
	arrived := time.Now()
	set := j.set.Load()
	if set.Mode == ModeOff {
		return proxy.Action{}
	}
	cs := stateOf(ev.Session)
	if ev.Kind == proxy.KindFunctionCall {
		return j.observeFunctionCall(ev, set, cs) // session.go
	}
	st := &cs.judge
	sql := ev.SQL
	if set.Mode == ModeEnforce || set.Catalog.HasMode(string(ModeEnforce)) {
		st.schema.observe(sql)
	}
	if st.prepared.has() {
		switch {
		case ev.Kind == proxy.KindParse && len(ev.Statement) > 0:
			// A protocol-level statement shares the names: a Parse
			// after a Close may replace one unseen.
			st.prepared.forget(string(ev.Statement), false)
		case sqltext.ContainsFold(sql, "deallocate") || sqltext.ContainsFold(sql, "discard"):
			st.prepared.forget("", true)
		}
	}
	if st.ddl {
		st.ddl = false
		st.bound.purge()
		j.schemas.invalidate(ev.Session.Database)
	}
	if isDDL(sql) {
		// Read the schema again next time; the DDL itself goes on to be
		// judged if it has a reference (and refused for its side effects).
		st.ddl = true
		st.bound.purge()
		j.schemas.invalidate(ev.Session.Database)
	}
	g := &cs.guc
	if g.active.Load() {
		g.transaction(sql, ev.Batch) // session.go
	}
	// An EXECUTE may run a statement prepared with a tag: read as
	// tagged text is.
	mentions := sqltext.ContainsFold(sql, "pgequiv") || st.prepared.hasTagged() && sqltext.ContainsFold(sql, "execute")
	tags := g.current()
	if !mentions && tags == (tag.Session{}) && !set.Catalog.HasMatches() {
		return proxy.Action{} // untagged: the common case stays cheap
	}
	if limit, ok := queryLimit(set); ok && len(sql) > limit {
		return j.oversized(ctx, ev, set, tags, mentions, limit) // size.go: nothing parses it here
	}
	text := string(sql)
	if v, done := j.observeSetting(ev, set, g, text, mentions, tags); done { // session.go
		return v
	}
	return j.observeStatements(ctx, ev, set, st, text, mentions, tags, arrived) // stmts.go
}

// NeedsObservation implements StatementFilter. It mirrors the cheap early
// returns of ObserveQuery: with judging off, or for an untagged non-DDL
// statement on a connection without pgequiv settings, pending schema
// refresh or catalog fingerprint matches, ObserveQuery does nothing.
func (j *Judging) NeedsObservation(sess *proxy.Session, kind proxy.QueryKind, sql []byte) bool {
	set := j.set.Load()
	if set.Mode == ModeOff {
		return false
	}
	if kind == proxy.KindFunctionCall {
		cs, ok := sess.State.(*judgeSession)
		return ok && cs.guc.active.Load()
	}
	if (set.Mode == ModeEnforce || set.Catalog.HasMode(string(ModeEnforce))) && mayChangeResolution(sql) {
		return true // sessionschema.go
	}
	if cs, ok := sess.State.(*judgeSession); ok && (cs.judge.ddl || cs.guc.active.Load() ||
		cs.judge.prepared.has() && (kind == proxy.KindParse || mayChangePrepared(sql)) ||
		cs.judge.prepared.hasTagged() && sqltext.ContainsFold(sql, "execute")) {
		return true
	}
	return isDDL(sql) || sqltext.ContainsFold(sql, "pgequiv") || set.Catalog.HasMatches()
}

// deferredGrace is how much longer than the verdict timeout the proxy
// holds a ReadyForQuery for an annotate-mode notice.
const deferredGrace = 50 * time.Millisecond

// judgeJob is one tagged query to judge.
type judgeJob struct {
	start, deadline time.Time
	set             *JudgeSettings
	sess            proxy.Session
	ref             tag.Reference
	candidate       string
	mode            JudgeMode
	tagErr          error // the tag could not be resolved
	// direct: ref and candidate are judged as they are, without binding
	// the reference's placeholders from the candidate's constants (a
	// Bind's values are bound into both already).
	direct bool
	// parent is the application's span (the comment's traceparent).
	parent trace.SpanContext
	// sideEffects names the statement's side effect; it is not judged.
	sideEffects string
	// names are what a query names that may call a VOLATILE function
	// (tag.Statement.Names; volatile.go).
	names []string
	// stmt and stmts place the statement in a multi-statement Query (1 of
	// 3, ...); zero for a Query of one statement.
	stmt, stmts int
	// full, when set, says candidate is only the head of a statement
	// over max_query_size, which preset answers without judging.
	full   *textDigest
	preset *equivalence.Verdict
	// shape, when set, is what the slow path made of an earlier text of
	// candidate's shape (shapememo.go).
	shape *shapeEntry
	// proved, when set, is the verdict ObserveQuick found in the proofs
	// (quick.go); run answers with it.
	proved *provedVerdict
}

// judgeOutcome is a judgement's result.
type judgeOutcome struct {
	v        equivalence.Verdict
	err      error
	timedOut bool
	latency  time.Duration
	// sum, when set, is v's summary, kept with its proof (proofcache.go).
	sum string
}

func (o judgeOutcome) label() string {
	switch {
	case o.timedOut:
		return "timeout"
	case o.err != nil:
		return "error"
	}
	return string(o.v.Label)
}

// background judges job on its own goroutine, bounded by the deadline,
// and hands the outcome to done.
func (j *Judging) background(job *judgeJob, done func(judgeOutcome)) {
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		done(j.run(context.Background(), job))
	}()
}

// run judges job within its deadline. ctx carries the caller's
// cancellation only; its values are not used.
func (j *Judging) run(ctx context.Context, job *judgeJob) (out judgeOutcome) {
	if job.proved == nil {
		// A proof ObserveQuick found waits for nothing: its timer would
		// cost more, on the event loop, than the rest of the answer.
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, job.deadline)
		defer cancel()
	}
	ctx, span := j.startJudgeSpan(ctx, job) // trace.go
	defer func() { j.finish(job, span, &out) }()
	if job.sideEffects != "" {
		// Before a tag's error: a write with a broken reference is
		// still refused for its side effects, whatever enforce_unknown.
		out.err = &sideEffectsError{why: job.sideEffects}
		return out
	}
	if job.tagErr != nil {
		out.err = job.tagErr
		return out
	}
	if why := j.volatileCall(job); why != "" {
		// Before a kept proof: the function may have become VOLATILE
		// since (CREATE OR REPLACE).
		out.err = &sideEffectsError{why: why}
		return out
	}
	if why := j.shadowCall(job); why != "" {
		out.err = fmt.Errorf("%w: %s", ErrSessionSchema, why)
		return out
	}
	if job.preset != nil {
		out.v = *job.preset
		return out
	}
	if job.proved != nil {
		out.v, out.sum = job.proved.v, job.proved.summary
		return out
	}
	// The judge pool (judgepool.Local or Pool) bounds how many judgements
	// run at once and queues the rest within their deadline.
	if f := j.knobs.beforeJudge; f != nil {
		f(ctx)
	}
	if pv, ok := j.provedNow(job); ok {
		out.v, out.sum = pv.v, pv.summary
		return out
	}
	err := j.judgeWithin(ctx, job, &out.v) // deadline.go
	out.err = err
	out.timedOut = err != nil && (errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded))
	return out
}

// finish ends a judgement's span and counts it: verdicts by label,
// latency, the admin console's counters.
func (j *Judging) finish(job *judgeJob, span trace.Span, out *judgeOutcome) {
	out.latency = time.Since(job.start)
	label := out.label()
	if span.IsRecording() {
		span.SetAttributes(attribute.String("pgequiv.label", label), attribute.Float64("pgequiv.score", out.v.Score))
		if out.err != nil {
			span.SetStatus(codes.Error, j.redactError(job.set, out.err.Error()))
		}
	}
	span.End()
	attrs := verdictAttrs(job, label)
	j.verdicts.Add(context.Background(), 1, attrs)
	j.latency.Record(context.Background(), out.latency.Seconds(), attrs)
	j.stats.count(label)
	if out.timedOut {
		j.stats.timeouts.Add(1)
	}
}

// ErrJudgePanicked reports a judgement that panicked; the query is
// treated as not judgeable, and the proxy goes on.
var ErrJudgePanicked = judgepool.ErrPanicked

// judge runs the judge. The judge pool is its panic guard: in-process
// (judgepool.Local) or in its worker (judgepool.Pool), a panic costs only
// this verdict (ErrJudgePanicked).
//
// A pair proved before under the same schema and settings is answered
// from the proxy's proofs without the pool (proofcache.go).
func (j *Judging) judge(ctx context.Context, schema *catalog.Schema, job *judgeJob) (equivalence.Verdict, error) {
	judge := func(ctx context.Context, ref, cand string) (equivalence.Verdict, error) {
		k := newProofKey(schema, job.set, ref, cand)
		if v, ok := j.proofs.get(k); ok {
			return v, nil
		}
		v, err := j.judger.Judge(ctx, schema, ref, cand, job.set.Options)
		if err == nil {
			j.proofs.add(k, v)
		}
		return v, err
	}
	if job.direct {
		return judge(ctx, job.ref.SQL, job.candidate)
	}
	b := boundInput{ref: job.ref.SQL, candidate: job.candidate, refParams: j.shapes.ref(job.ref.SQL).params}
	if job.shape != nil {
		b.shape, b.shapeKnown = job.shape.param, true
	}
	return judgeBound(ctx, b, judge)
}

// enforce turns an outcome into forwarding or a refusal.
func (j *Judging) enforce(job *judgeJob, out judgeOutcome) proxy.Action {
	a, action := j.enforceOutcome(job, out)
	j.recordLater(job, out, action)
	return a
}

// enforceOutcome is enforce without the recording: the action and the
// name record gives it.
func (j *Judging) enforceOutcome(job *judgeJob, out judgeOutcome) (proxy.Action, string) {
	e := j.refusal(job, out) // stmts.go
	if e == nil {
		return proxy.Action{}, "forwarded"
	}
	j.stats.refusals.Add(1)
	return proxy.Action{Refuse: e}, "refused"
}
