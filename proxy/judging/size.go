package judging

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// queryLimit is the longest statement the proxy reads for judging
// (max_query_size; 0 means equivalence.DefaultMaxQueryBytes); ok is false
// when there is no limit.
func queryLimit(set *JudgeSettings) (limit int, ok bool) {
	limit = set.Options.MaxQueryBytes
	if limit == 0 {
		limit = equivalence.DefaultMaxQueryBytes
	}
	return limit, limit > 0
}

// oversized handles a statement longer than max_query_size before
// anything parses it in this process (finding its tag, fingerprinting,
// stripping comments, parameterizing and redacting a 17 MB statement took
// the proxy from 46 MB to 985 MB resident and seconds past the budget).
// Only byte scans run here: a statement is taken as tagged when it
// mentions pgequiv (where a tag comment would be) or when the session has
// a reference for it, and its verdict is unknown, "too large to judge",
// at once, which the mode then treats as any unknown verdict (enforce
// refuses it with PGQ02 under enforce_unknown). The tag is not read, so
// the mode is the strictest it could name: enforce if the proxy's mode is
// or any catalog entry's is. An untagged statement
// under a match: catalog cannot be fingerprinted within the bound, so it
// is not matched; it is counted (oversized_unmatched) and forwarded.
func (j *Judging) oversized(ctx context.Context, ev *proxy.QueryEvent, set *JudgeSettings, tags tag.Session, mentions bool, limit int) proxy.Action {
	sql := ev.SQL
	j.stats.oversized.Add(1)
	if set.Catalog.HasMatches() && (set.Mode == ModeEnforce || set.Catalog.HasMode(string(ModeEnforce))) {
		// It may be a match: query padded past the limit: refused, tag
		// or not, since a catalog entry applies whatever the client says
		// (issue 34, item 6).
		return j.refuseUnmatched(ctx, ev, set, limit)
	}
	sessionRef := tags.Reference != "" || tags.ReferenceID != ""
	if !mentions && !(sessionRef && isQuery(sql)) {
		j.stats.oversizedUnmatched.Add(1)
		return proxy.Action{}
	}
	v := tooLargeVerdict(fmt.Sprintf("statement is %d bytes, over max_query_size (%d); not read", len(sql), limit))
	return j.answerUnread(ctx, ev, set, unreadReference(set, tags, mentions), mentions, "", v, time.Now())
}

// unreadReference is what is known of an unread statement's reference: a
// tag in the statement (mentions), else the session's, named as Resolve
// would name it.
func unreadReference(set *JudgeSettings, tags tag.Session, mentions bool) tag.Reference {
	ref := tag.Reference{Source: tag.FromComment}
	if mentions {
		return ref
	}
	ref.Source = tag.FromSession
	ref.SQL = tags.Reference
	if ref.SQL == "" {
		if e, ok := set.Catalog.ByID(tags.ReferenceID); ok {
			ref.SQL, ref.ID, ref.Mode, ref.Database = e.Reference, e.ID, e.Mode, e.Database
		}
	}
	return ref
}

// answerUnread answers a tagged statement the proxy did not read with
// verdict v (unknown), naming ref (what is known of its reference without
// reading it). The tag is not read, so the mode is the strictest it could
// name: enforce if the proxy's mode is or any catalog entry's is.
//
// modeKnown, when set, is the strictest mode the statement's tags name,
// found without parsing it (tagsMode).
func (j *Judging) answerUnread(ctx context.Context, ev *proxy.QueryEvent, set *JudgeSettings, ref tag.Reference, mentions bool, modeKnown JudgeMode, v *equivalence.Verdict, start time.Time) proxy.Action {
	sql := ev.SQL
	job := &judgeJob{
		start: start, set: set, sess: *ev.Session, ref: ref, mode: set.Mode,
		candidate: headOf(sql, maxStoredSQL), full: &textDigest{size: len(sql), sum: j.digest(sql)},
		preset: v,
	}
	job.sess.State = nil // the job outlives the statement; it reads only the fixed fields
	switch {
	case ref.Mode != "":
		job.mode = JudgeMode(ref.Mode)
	case mentions && modeKnown != "":
		job.mode = modeKnown
	case mentions && set.Catalog.HasMode(string(ModeEnforce)):
		// The tag, unread, may name an enforce-mode entry: padding a
		// statement past the limit must not turn enforce into annotate.
		job.mode = ModeEnforce
	}
	job.deadline = judgeDeadline(job.start, set)
	if job.mode == ModeEnforce {
		job.sideEffects = unreadEffect(ev)
		if job.sideEffects == "" {
			// The calls the lexer finds (filefuncs_check.go); a
			// statement refused already needs none.
			job.names = j.unreadCalls(ev, set)
			if len(job.names) > 0 && j.schemas.fileFunctions(&set.Schemas, ev.Session.Database) == nil {
				// The VOLATILE names come with the introspected schema:
				// read it first (a load error leaves them unknown, and
				// the statement goes on as cannot judge).
				lctx, cancel := context.WithDeadline(ctx, job.deadline)
				_, _ = j.schemas.get(lctx, &set.Schemas, ev.Session.Database)
				cancel()
			}
		}
		job.tagErr = encodingErr(ev) // the lexer's reading may not be the server's
	}
	j.stats.tagged.Add(1)
	out := j.run(ctx, job)
	switch job.mode {
	case ModeEnforce:
		return j.enforce(job, out)
	case ModeAnnotate:
		j.recordLater(job, out, "annotated")
		return proxy.Action{Notice: &pgproto3.NoticeResponse{Message: "pgequiv: " + out.summary(keepText)}}
	default:
		j.recordLater(job, out, "logged")
		return proxy.Action{}
	}
}

// unreadEffect is what may give an unread statement side effects, read
// with the proxy's own lexer (tag.UnreadEffect): enforce mode refuses
// such a statement for its side effects, as it would have once parsed,
// whatever enforce_unknown says; padding an UPDATE past max_query_size,
// or sending it while the proxy is busy, must not let it run. Where the
// session's standard_conforming_strings is uncertain, both readings
// count.
func unreadEffect(ev *proxy.QueryEvent) string {
	strs := sqltext.StandardStrings
	if ev.BackslashStrings {
		strs = sqltext.BackslashStrings
	}
	text := string(ev.SQL)
	why := tag.UnreadEffect(text, strs)
	if why == "" && ev.StringsUncertain {
		why = tag.UnreadEffect(text, 1-strs)
	}
	if why == "" {
		return ""
	}
	return why + " (seen by the proxy's lexer in a statement it did not parse)"
}

// tooLargeBind is the verdict for a Bind whose values, written into the
// statement, would pass max_query_size; nil when they would not. The
// values are not copied or scanned: a 20 MB parameter written in as a
// literal, then parameterized for the judge, took gigabytes.
func tooLargeBind(set *JudgeSettings, ev *proxy.BindEvent, candidate string) *equivalence.Verdict {
	limit, ok := queryLimit(set)
	if !ok {
		return nil
	}
	n := len(candidate)
	for _, v := range ev.Values {
		n += len(v)
	}
	if n <= limit {
		return nil
	}
	return tooLargeVerdict(fmt.Sprintf("statement with its bound values is over %d bytes, over max_query_size (%d); not read", n, limit))
}

// tooLargeVerdict is the unknown verdict of a statement not judged for
// its size, as the judge gives it (equivalence.ComponentTooLarge).
func tooLargeVerdict(why string) *equivalence.Verdict {
	v := equivalence.UnknownVerdict(equivalence.Difference{Component: equivalence.ComponentTooLarge, Candidate: why})
	return &v
}

// ErrTooLargeToMatch marks a statement over max_query_size in enforce
// mode with a match: catalog: it cannot be fingerprinted within the
// bound, so no entry can be ruled out.
var ErrTooLargeToMatch = errors.New("the statement is over max_query_size, too large to fingerprint against the match: catalog")

// refuseUnmatched refuses an oversized statement that a match: catalog
// entry may hold to its reference (PGQ02, whatever enforce_unknown).
func (j *Judging) refuseUnmatched(ctx context.Context, ev *proxy.QueryEvent, set *JudgeSettings, limit int) proxy.Action {
	sql := ev.SQL
	job := &judgeJob{
		start: time.Now(), set: set, sess: *ev.Session, ref: tag.Reference{Source: tag.FromCatalogMatch}, mode: ModeEnforce,
		candidate: headOf(sql, maxStoredSQL), full: &textDigest{size: len(sql), sum: j.digest(sql)},
		tagErr: fmt.Errorf("%w (%d bytes, max_query_size %d)", ErrTooLargeToMatch, len(sql), limit),
	}
	job.sess.State = nil
	job.deadline = judgeDeadline(job.start, set)
	j.stats.tagged.Add(1)
	return j.enforce(job, j.run(ctx, job))
}
