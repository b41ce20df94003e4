package judging

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"go.opentelemetry.io/otel/trace"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// SideEffectsPolicy is what enforce mode does with a statement that has a
// reference but changes data or the schema or runs code, and so is never
// equivalent to it.
type SideEffectsPolicy string

// Side-effect policies.
const (
	// SideEffectsRefuse refuses it with PGQ02 (the default).
	SideEffectsRefuse SideEffectsPolicy = "refuse"
	// SideEffectsForward lets it run unjudged (and says so in the log).
	SideEffectsForward SideEffectsPolicy = "forward"
)

// ErrSideEffects marks a statement not judged because it has side effects.
var ErrSideEffects = errors.New("a statement that changes data or the schema, or runs code, is never equivalent to a query")

// sideEffectsError names the side effect.
type sideEffectsError struct{ why string }

func (e *sideEffectsError) Error() string {
	return "not judged: " + e.why + " has side effects, and " + ErrSideEffects.Error()
}

func (e *sideEffectsError) Unwrap() error { return ErrSideEffects }

// observeStatements judges each statement of a Query (or the one of a
// Parse) on its own: the statement's own tag, else the session's
// reference (for queries and data changes), else a catalog match. Enforce
// refuses the whole Query unless every judged statement passes; annotate
// adds a NOTICE per judged statement; log logs each.
func (j *Judging) observeStatements(ctx context.Context, ev *proxy.QueryEvent, set *JudgeSettings, st *judgeConnState, text string, mentions bool, tags tag.Session, arrived time.Time) proxy.Action {
	// Reading the statements (pg_query's scanner and parser, fingerprints)
	// is the proxy's own heaviest work; under overload a tagged statement
	// that waits too long for it is answered unread (admission.go).
	if a, refused := j.refuseEncoding(ctx, ev, set, tags, mentions, arrived); refused { // encoding.go
		return a
	}
	tagged := mentions || (tags.Reference != "" || tags.ReferenceID != "") && isQuery(ev.SQL)
	if !j.admit.enter(arrived, set.VerdictTimeout, tagged) {
		return j.busy(ctx, ev, set, tags, mentions, arrived)
	}
	jobs := j.statementJobs(ev, set, st, text, mentions, tags, arrived)
	j.admit.leave()
	if len(jobs) == 0 {
		return proxy.Action{}
	}
	if len(jobs) == 1 && jobs[0].stmts == 0 {
		// The common case: one statement. A prepared one is seen again
		// at each Bind (bind.go): judged with its values where this
		// verdict does not settle it, or under a new session reference.
		job := jobs[0]
		var bj *bindJudge
		if ev.Kind == proxy.KindParse && job.tagErr == nil && job.sideEffects == "" {
			bj = j.newBindJudge(job)
		}
		return j.dispatch(ctx, job, bj)
	}
	return j.dispatchAll(ctx, jobs)
}

// statementJobs reads text's statements and returns a job for each one
// with a reference; none when only a catalog match could apply and none
// does.
func (j *Judging) statementJobs(ev *proxy.QueryEvent, set *JudgeSettings, st *judgeConnState, text string, mentions bool, tags tag.Session, arrived time.Time) []*judgeJob {
	strs := sqltext.StandardStrings
	if ev.BackslashStrings {
		strs = sqltext.BackslashStrings
	}
	if !mentions && tags == (tag.Session{}) && !ev.BackslashStrings && !ev.StringsUncertain &&
		strings.IndexByte(strings.TrimRight(text, " \t\r\n\f;"), ';') < 0 {
		// Only a catalog match can apply, to a text of one statement: one
		// fingerprint tells, as before statements were split.
		if _, ok := set.Catalog.Match(text); !ok {
			if _, ok := set.Catalog.MatchWithin(text); !ok {
				return nil
			}
		}
	}
	stmts, shape, err := j.split(text, strs, ev.StringsUncertain)
	if err != nil {
		// The lexer rejects the text (the server then runs none of it),
		// or it cannot be read for sure: one statement, judged (or not)
		// by its session reference or catalog match, whose error the
		// judge reports.
		one := tag.Statement{Start: 0, End: len(text), Judged: text, ParseErr: err}
		if errors.Is(err, tag.ErrAmbiguousStrings) {
			one.JudgedErr = err
			if mentions {
				one.CommentErr = err // a tag may be in it: never wave it through
			}
		}
		stmts = []tag.Statement{one}
	}
	byStmt := make([]*judgeJob, len(stmts))
	var local map[string]*tag.Prepared // PREPAREs earlier in this Query
	for i := range stmts {
		s := &stmts[i]
		switch {
		case s.Prepare != nil:
			// If it fails, the rest of the Query does not run.
			if local == nil {
				local = map[string]*tag.Prepared{}
			}
			s.Prepare.Comment, s.Prepare.CommentErr = s.Comment, s.CommentErr
			local[s.Prepare.Name] = s.Prepare
			st.prepared.add(ev.Batch, s.Prepare)
		case s.Execute != nil:
			st.prepared.expandExecute(local, s, strs)
		}
		if (s.Class == tag.ClassEffect || s.Class == tag.ClassRun) && !st.ddl {
			st.ddl = true // the schema may change: read it again next time
			j.schemas.invalidate(ev.Session.Database)
		}
		if s.Prepare != nil && tag.HasParams(s.Prepare.Body) {
			// Its arguments decide: each EXECUTE is judged with them.
			continue
		}
		byStmt[i] = j.statementJob(ev, set, &tags, text, s, mentions, arrived)
	}
	if len(stmts) > 1 {
		j.coverUntagged(stmts, byStmt)
	}
	var jobs []*judgeJob
	changing := "" // a statement earlier in the Query changes the schema
	for i, job := range byStmt {
		if job != nil && job.sideEffects == "" && job.tagErr == nil && job.mode == ModeEnforce {
			switch why := st.schema.why(); {
			case changing != "":
				job.tagErr = fmt.Errorf("%w: %s earlier in the Query changes the schema first", ErrSessionSchema, changing)
			case why != "":
				job.tagErr = fmt.Errorf("%w: %s", ErrSessionSchema, why)
			default:
				if why := j.schemas.rolePathWhy(&set.Schemas, ev.Session.Database, ev.Session.User); why != "" {
					job.tagErr = fmt.Errorf("%w: %s", ErrSessionSchema, why)
				}
			}
		}
		if s := &stmts[i]; changing == "" && (s.Class == tag.ClassEffect || s.Class == tag.ClassRun) {
			changing = fmt.Sprintf("statement %d (%s)", i+1, s.Why)
		}
		if job == nil {
			continue
		}
		if len(stmts) > 1 {
			job.stmt, job.stmts = i+1, len(stmts)
		}
		job.shape = shape // one statement, if set
		jobs = append(jobs, job)
	}
	return jobs
}

// coverUntagged gives a job to each statement with side effects and no
// reference of its own in a Query where an enforced statement carries a
// tag. A tag covers its own statement only, but the Query runs whole: a
// sqlcommenter tag appended to generated SQL (`INSERT ...; SELECT ...
// /*pgequiv_ref=...*/`) would otherwise have the INSERT run unjudged
// while the SELECT passes. The job is refused for its side effects
// (PGQ02, enforce_side_effects), which refuses the whole Query.
func (j *Judging) coverUntagged(stmts []tag.Statement, byStmt []*judgeJob) {
	var tagged *judgeJob
	for i, job := range byStmt {
		s := &stmts[i]
		if job != nil && job.mode == ModeEnforce && (s.Comment != nil || s.CommentErr != nil) {
			tagged = job
			break
		}
	}
	if tagged == nil {
		return
	}
	for i := range stmts {
		s := &stmts[i]
		if byStmt[i] != nil || !s.Class.HasSideEffects() {
			continue
		}
		job := *tagged
		job.candidate, job.tagErr, job.parent, job.shape, job.proved = s.Judged, nil, trace.SpanContext{}, nil, nil
		job.sideEffects = s.Why + " (untagged, beside tagged statement " + fmt.Sprint(indexOf(byStmt, tagged)+1) + ")"
		byStmt[i] = &job
		j.stats.tagged.Add(1)
	}
}

func indexOf(jobs []*judgeJob, job *judgeJob) int {
	for i, x := range jobs {
		if x == job {
			return i
		}
	}
	return -1
}

// split splits text as tag.Split (tag.SplitUncertain where uncertain)
// does, from the shape memo where text is one statement of a known shape
// (shapememo.go); shape is then set.
func (j *Judging) split(text string, strs sqltext.Strings, uncertain bool) ([]tag.Statement, *shapeEntry, error) {
	// With standard strings, and where the setting is uncertain but no
	// backslash can make it matter, Split reads text as ReadShape does.
	if strs == sqltext.StandardStrings && (!uncertain || strings.IndexByte(text, '\\') < 0) {
		if sh, ok := tag.ReadShape(text); ok {
			if st, e, ok := j.shapes.statement(&sh); ok {
				return []tag.Statement{st}, e, nil
			}
			stmts, err := tag.Split(text, strs)
			if err == nil {
				j.shapes.learn(&sh, stmts)
			}
			return stmts, nil, err
		}
	}
	if uncertain {
		stmts, err := tag.SplitUncertain(text, strs)
		return stmts, nil, err
	}
	stmts, err := tag.Split(text, strs)
	return stmts, nil, err
}

// statementJob resolves one statement's reference; nil if it has none
// (or it is for another database).
func (j *Judging) statementJob(ev *proxy.QueryEvent, set *JudgeSettings, tags *tag.Session, text string, s *tag.Statement, mentions bool, arrived time.Time) *judgeJob {
	job := resolveJob(ev, set, tags, text, s, mentions, arrived)
	if job != nil {
		j.stats.tagged.Add(1)
	}
	return job
}

// resolveJob is statementJob without counting the job: ObserveQuick
// resolves before it knows it can answer.
func resolveJob(ev *proxy.QueryEvent, set *JudgeSettings, tags *tag.Session, text string, s *tag.Statement, mentions bool, arrived time.Time) *judgeJob {
	ref, ok, err := s.ResolveIn(text, tags, set.Catalog, ev.Session.Database)
	if err == nil && !ok {
		return nil
	}
	isQ := s.Class.IsQuery()
	if s.Class == tag.ClassUnknown {
		isQ = isQuery([]byte(text[s.Start:s.End]))
	}
	tagged := s.Comment != nil || s.CommentErr != nil
	if !isQ && (err == nil && ref.Source == tag.FromSession || err != nil && !tagged && !mentions) {
		// A session setting (even a broken one) applies to queries, data
		// changes and what may run them (DO, CALL, EXECUTE, COPY), not
		// to BEGIN, SET, SHOW, CREATE, ...
		return nil
	}
	if ok && ref.Database != "" && ref.Database != ev.Session.Database {
		if ref.Source == tag.FromCatalogMatch {
			return nil // the entry is for another database
		}
		if err == nil {
			err = fmt.Errorf("reference %q is for database %q", ref.ID, ref.Database)
		}
	}
	if err == nil {
		// A tag value is URL-decoded, so %00 puts a NUL in the reference;
		// the judge's parser would read only up to it.
		err = sqltext.CheckNUL("the reference", ref.SQL)
	}
	if err == nil && s.JudgedErr != nil {
		err = s.JudgedErr
	}
	// The application's span is in the statement's own comment, read as
	// the session's lexer reads it.
	parent := trace.SpanContext{}
	if s.Comment != nil {
		parent = commentTraceParent(s.Comment)
	}
	job := &judgeJob{
		start: arrived, set: set, sess: *ev.Session, ref: ref, candidate: s.Judged, mode: set.Mode, tagErr: err,
		parent: parent,
	}
	if s.Class.HasSideEffects() {
		job.sideEffects = s.Why
	}
	job.names = s.Names
	job.sess.State = nil // the job outlives the statement; it reads only the fixed fields
	if ref.Mode != "" {
		job.mode = JudgeMode(ref.Mode)
	}
	job.deadline = judgeDeadline(job.start, set)
	return job
}

// dispatch judges one statement as its mode says. bj is set for a
// statement with parameters, judged again at each Bind where this verdict
// does not settle it.
func (j *Judging) dispatch(ctx context.Context, job *judgeJob, bj *bindJudge) proxy.Action {
	switch job.mode {
	case ModeEnforce:
		out := j.run(ctx, job)
		if bj == nil {
			return j.enforce(job, out)
		}
		if bj.deferEnforce(job, out) && bj.params {
			j.recordLater(job, out, "deferred")
			return proxy.Action{Bind: bj}
		}
		a := j.enforce(job, out)
		if a.Refuse == nil {
			a.Bind = bj // judged again where the session's reference changes
		}
		return a
	case ModeAnnotate:
		return proxy.Action{Later: j.annotate(job, bj), Bind: bj.orNil()}
	default: // ModeLog
		j.background(job, func(out judgeOutcome) {
			bj.settle(job, out)
			j.record(job, out, "logged")
		})
		return proxy.Action{Bind: bj.orNil()}
	}
}

// annotate judges job in the background; its NOTICE comes before the
// Query's ReadyForQuery. bj, when set, learns the verdict first.
func (j *Judging) annotate(job *judgeJob, bj *bindJudge) *proxy.Deferred {
	// The proxy waits a little past the judge's own deadline, so a
	// judgement that gives up in time still reports that it did.
	d := proxy.NewDeferred(job.deadline.Add(deferredGrace)).WithFallback(func() *pgproto3.NoticeResponse {
		return &pgproto3.NoticeResponse{Message: "pgequiv: " + job.prefix() +
			"no verdict in time (verdict_timeout " + job.set.VerdictTimeout.String() + "; the judgement was still running)"}
	})
	j.background(job, func(out judgeOutcome) {
		bj.settle(job, out)
		j.notify(job, d, out)
	})
	return d
}

// notify delivers an annotate-mode verdict as the NOTICE d stands for, or
// records it as late.
func (j *Judging) notify(job *judgeJob, d *proxy.Deferred, out judgeOutcome) {
	if d.Deliver(verdictNotice(job, out)) {
		j.record(job, out, "annotated")
		return
	}
	j.stats.late.Add(1)
	j.record(job, out, "late")
	j.log.Warn("pgequiv verdict not ready when the response ended; not shown to the client",
		"conn", job.sess.ConnID, "reference_id", job.ref.ID, "summary", out.summary(j.redactor(job.set)),
		"latency", out.latency)
}

// verdictNotice is the annotate-mode NOTICE of job's verdict.
func verdictNotice(job *judgeJob, out judgeOutcome) *pgproto3.NoticeResponse {
	n := &pgproto3.NoticeResponse{Message: "pgequiv: " + job.prefix() + out.summary(keepText)}
	if ce := out.v.Counterexample; ce != nil && out.err == nil {
		n.Detail = "counterexample:\n" + ce.Detail()
	}
	return n
}

// dispatchAll handles the judged statements of a multi-statement Query.
// The enforced ones are judged at once, side by side, within the verdict
// timeout; one that does not pass refuses the whole Query, which then runs
// no statement.
func (j *Judging) dispatchAll(ctx context.Context, jobs []*judgeJob) proxy.Action {
	var v proxy.Action
	var enforced []*judgeJob
	for _, job := range jobs {
		switch job.mode {
		case ModeEnforce:
			enforced = append(enforced, job)
		case ModeAnnotate:
			v.Laters = append(v.Laters, j.annotate(job, nil))
		default:
			j.background(job, func(out judgeOutcome) { j.record(job, out, "logged") })
		}
	}
	if len(enforced) == 0 {
		return v
	}
	outs := make([]judgeOutcome, len(enforced))
	var wg sync.WaitGroup
	for i, job := range enforced {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = j.run(ctx, job)
		}()
	}
	wg.Wait()
	var refusal *pgproto3.ErrorResponse
	for i, job := range enforced {
		if e := j.refusal(job, outs[i]); e != nil && refusal == nil {
			refusal = e
		}
	}
	action := "forwarded"
	if refusal != nil {
		action = "refused"
		j.stats.refusals.Add(1)
		refusal.Hint = "No statement of the query ran. " + refusal.Hint
	}
	for i, job := range enforced {
		j.recordLater(job, outs[i], action)
	}
	v.Refuse = refusal
	return v
}

// prefix names the statement within its Query: "statement 2 of 3: ".
func (job *judgeJob) prefix() string {
	if job.stmts == 0 {
		return ""
	}
	return fmt.Sprintf("statement %d of %d: ", job.stmt, job.stmts)
}

// refusal is the ErrorResponse refusing job's statement, or nil if it
// passes.
func (j *Judging) refusal(job *judgeJob, out judgeOutcome) *pgproto3.ErrorResponse {
	pass := out.err == nil && job.set.Options.Passes(out.v)
	code := SQLStateNotEquivalent
	switch {
	case pass:
	case errors.Is(out.err, ErrSideEffects):
		code = SQLStateUnverified
		pass = job.set.EnforceSideEffects == SideEffectsForward
	case errors.Is(out.err, tag.ErrAmbiguousStrings), errors.Is(out.err, tag.ErrLineComment), errors.Is(out.err, ErrClientEncoding),
		errors.Is(out.err, tag.ErrWrappedMatch), errors.Is(out.err, ErrTooLargeToMatch), errors.Is(out.err, tag.ErrUnknownKey),
		errors.Is(out.err, ErrSessionSchema):
		// A catalog entry's query wrapped in a larger statement, or
		// padded past max_query_size, is a way around the entry.
		// The proxy cannot tell what the server will read (a pipelined
		// change of standard_conforming_strings): never forwarded, or
		// pipelining would be a way around enforce_unknown: false. A tag
		// in a -- comment is a tag the proxy cannot read, and a text
		// under another client_encoding one it cannot read as the server
		// does: refused for the same reason.
		code = SQLStateUnverified
	case out.err != nil || out.v.Label == equivalence.Unknown:
		code = SQLStateUnverified
		pass = !job.set.EnforceUnknown
	}
	if pass {
		return nil
	}
	e := &pgproto3.ErrorResponse{
		Code:    code,
		Message: "pgequiv: query refused: " + job.prefix() + out.summary(keepText),
	}
	if job.ref.ID != "" {
		e.Detail = "reference id: " + job.ref.ID
	}
	var lines []string
	for _, d := range out.v.Differences {
		lines = append(lines, d.String())
	}
	if len(lines) > 0 {
		if e.Detail != "" {
			e.Detail += "\n"
		}
		e.Detail += "differences:\n" + strings.Join(lines, "\n")
	}
	if ce := out.v.Counterexample; ce != nil && out.err == nil {
		if e.Detail != "" {
			e.Detail += "\n"
		}
		e.Detail += "counterexample:\n" + ce.Detail()
	}
	// ErrorResponse fields are C strings: a NUL would end the field early
	// and desynchronise the client.
	e.Hint = "The statement did not run. Its reference is: " + strings.ReplaceAll(job.ref.SQL, "\x00", `\x00`)
	return e
}
