package judging

import (
	"context"
	"log/slog"

	"github.com/pgequiv/pgequiv/proxy"
)

// recordLater records off the query's path: fingerprinting and
// redacting a large query, and appending to the verdict file, must not
// delay the statement the verdict lets through or refuses.
func (j *Judging) recordLater(job *judgeJob, out judgeOutcome, action string) {
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		j.record(job, out, action)
	}()
}

// maxRecordOnLoop is the longest statement whose verdict the fast relay's
// loop records itself (recordAfter): fingerprinting and redacting a
// longer one would hold up every connection on the loop.
const maxRecordOnLoop = 8 << 10

// recordAfter is recordLater for a statement answered on the fast relay's
// event loop (ObserveQuick): the work, returned for QuickAction.After,
// runs on the loop once it is idle, so that a tagged statement costs no
// goroutine start and no wake-up of another thread. Only the verdict
// log's append, a file write that may block, goes to a goroutine. A long
// statement is recorded by a goroutine as before, and then it returns nil.
func (j *Judging) recordAfter(job *judgeJob, out judgeOutcome, action string) func() {
	if len(job.candidate) > maxRecordOnLoop {
		j.recordLater(job, out, action)
		return nil
	}
	j.wg.Add(1)
	return func() {
		defer j.wg.Done()
		rec := j.recordNoFile(job, out, action)
		if j.vfile != nil {
			j.wg.Add(1)
			go func() {
				defer j.wg.Done()
				j.appendFile(&rec)
			}()
		}
	}
}

// record counts, remembers and, in log mode, logs one verdict.
func (j *Judging) record(job *judgeJob, out judgeOutcome, action string) {
	rec := j.recordNoFile(job, out, action)
	j.appendFile(&rec)
}

// recordNoFile is record but for the verdict log's append, left to the
// caller with the record it returns.
func (j *Judging) recordNoFile(job *judgeJob, out judgeOutcome, action string) proxy.VerdictRecord {
	set := job.set
	redact := j.hintRedactor(set) // sqltext.go
	summary := out.summary(redact)
	rec := proxy.VerdictRecord{
		Time: job.start, ConnID: job.sess.ConnID, User: job.sess.User, Database: job.sess.Database,
		ReferenceID: job.ref.ID, Source: string(job.ref.Source), Mode: string(job.mode),
		Label: out.label(), Score: out.v.Score, Action: action, Latency: out.latency,
		Summary: j.storeText(set, summary), Query: j.storeCandidate(job),
		Reference: j.storeReference(set, job.ref.SQL), Counterexample: j.storeText(set, counterexampleText(out, redact)),
	}
	switch {
	case job.full != nil:
	case job.shape != nil:
		rec.QueryFingerprint, _ = job.shape.record(job.candidate)
	default:
		rec.QueryFingerprint = queryFingerprint(job.candidate)
	}
	j.remember(rec)
	if action != "logged" {
		j.log.Debug("pgequiv verdict", "conn", job.sess.ConnID, "reference_id", job.ref.ID, "mode", job.mode,
			"label", out.label(), "action", action, "latency", out.latency)
		return rec
	}
	diffs := make([]string, 0, len(out.v.Differences))
	for _, d := range out.v.Differences {
		diffs = append(diffs, d.Redacted(redact).String())
	}
	assumptions := make([]string, 0, len(out.v.Assumptions))
	for _, a := range out.v.Assumptions {
		assumptions = append(assumptions, a.String())
	}
	attrs := []slog.Attr{
		slog.Uint64("conn", job.sess.ConnID),
		slog.String("user", job.sess.User),
		slog.String("database", job.sess.Database),
		slog.String("reference_id", job.ref.ID),
		slog.String("reference_source", string(job.ref.Source)),
		slog.String("query_fingerprint", rec.QueryFingerprint),
		slog.String("reference_fingerprint", out.v.ReferenceFingerprint),
		slog.String("candidate_fingerprint", out.v.CandidateFingerprint),
		slog.String("label", out.label()),
		slog.Float64("score", out.v.Score),
		slog.Any("rules", orEmpty(out.v.Rules)), // [] rather than null, as the other lists
		slog.Any("assumptions", assumptions),
		slog.Any("differences", diffs),
		slog.Float64("latency_ms", float64(out.latency.Microseconds())/1000),
		slog.String("query", rec.Query),
		slog.String("reference", rec.Reference),
	}
	if ce := out.v.Counterexample; ce != nil && out.err == nil {
		attrs = append(attrs, slog.Any("counterexample", ce.Redacted(redact)))
	}
	if out.err != nil {
		attrs = append(attrs, slog.String("error", j.redactError(set, out.err.Error())))
	}
	j.vlog.LogAttrs(context.Background(), slog.LevelInfo, "pgequiv verdict", attrs...)
	return rec
}
