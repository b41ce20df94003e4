package judging

import (
	"context"
	"errors"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// ModeAnswer is the mode recorded for database-free mode's judgements:
// the verdict is the statement's answer. It is not a setting.
const ModeAnswer JudgeMode = "answer"

// DirectJudgement is one judgement that database-free mode (package
// dbfree) runs itself, with no QueryEvent and no upstream.
type DirectJudgement struct {
	ConnID         uint64
	User, Database string
	// Ref is the reference (Source empty for a pgequiv.check call).
	Ref tag.Reference
	// Candidate is the query judged, comment stripped; SQL is the
	// statement as sent (its comment's traceparent parents the span).
	Candidate, SQL string
	// Options are the judge's options (for SHOW VERDICTS and redaction
	// the Judging's own settings apply).
	Options equivalence.Options
}

// JudgeDirect runs judge (bounded by ctx) as a relayed query's judgement
// is run: in a pgequiv.judge span (a child of the statement's traceparent),
// counted in the verdict counter and latency histogram by label, in the
// admin console's counters, SHOW VERDICTS, SHOW DIVERGENCES and the verdict
// file. It returns judge's result unchanged.
func (j *Judging) JudgeDirect(ctx context.Context, d DirectJudgement, judge func(context.Context) (equivalence.Verdict, error)) (equivalence.Verdict, error) {
	set := *j.set.Load()
	set.Options = d.Options
	job := &judgeJob{
		start: time.Now(), set: &set, sess: proxy.Session{ConnID: d.ConnID, User: d.User, Database: d.Database},
		ref: d.Ref, candidate: d.Candidate, mode: ModeAnswer, parent: traceParent(d.SQL),
	}
	if dl, ok := ctx.Deadline(); ok {
		job.deadline = dl
	}
	j.stats.tagged.Add(1)
	ctx, span := j.startJudgeSpan(ctx, job)
	var out judgeOutcome
	out.v, out.err = judge(ctx)
	out.timedOut = out.err != nil && (errors.Is(out.err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded))
	j.finish(job, span, &out)
	j.recordLater(job, out, "answered")
	return out.v, out.err
}
