package judging

import (
	"bytes"
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// ObserveQuick implements proxy.QuickObserver. It answers the common case
// of a tagged statement, a simple Query of a known shape (shapememo.go)
// whose pair the proxy has proved before (proofcache.go), as ObserveQuery
// would, but with annotate's NOTICE in hand rather than deferred to a
// judge goroutine, so that the fast relay can keep the connection.
//
// It first looks without changing anything (quickJob); everything it
// cannot answer for sure, and every statement that changes the
// connection's judging state (DDL, pgequiv settings, a schema refresh
// due), goes to ObserveQuery untouched.
func (j *Judging) ObserveQuick(ctx context.Context, ev *proxy.QueryEvent) (proxy.QuickAction, bool) {
	arrived := time.Now()
	set := j.set.Load()
	job, sh, ok := j.quickJob(ev, set, arrived)
	if !ok {
		return proxy.QuickAction{}, false
	}
	// Answered: count what ObserveQuery's path counts.
	j.shapes.touch(&sh)
	if job == nil {
		return proxy.QuickAction{}, true // a statement without a reference
	}
	j.stats.tagged.Add(1)
	if job.mode != ModeEnforce {
		// Annotate's notice refuses nothing: the relay may send the
		// statement before the notice is worked out.
		return proxy.QuickAction{Finish: func() (*pgproto3.NoticeResponse, func()) {
			out := j.run(ctx, job) // job.proved or a tag's error: no judge
			// "annotated", as notify says it, for a notice that cannot
			// be late.
			return verdictNotice(job, out), j.recordAfter(job, out, "annotated")
		}}, true
	}
	out := j.run(ctx, job)
	a, action := j.enforceOutcome(job, out)
	return proxy.QuickAction{Refuse: a.Refuse, After: j.recordAfter(job, out, action)}, true
}

// quickJob is ObserveQuery's path up to the judge, for a statement
// ObserveQuick can answer, without its side effects: ok is false where
// that path would change state, split the text, ask the judge or wait.
// job is nil (with ok) for a statement without a reference; a job has
// proved set unless a tag's error answers it.
func (j *Judging) quickJob(ev *proxy.QueryEvent, set *JudgeSettings, arrived time.Time) (job *judgeJob, sh tag.Shape, ok bool) {
	if set.Mode == ModeOff || ev.Kind != proxy.KindQuery || ev.BackslashStrings || ev.StringsUncertain ||
		j.knobs.beforeJudge != nil {
		return nil, sh, false
	}
	sql := ev.SQL
	cs := stateOf(ev.Session)
	if cs.judge.ddl || cs.guc.active.Load() || isDDL(sql) || cs.judge.schema.why() != "" || !sqltext.ContainsFold(sql, "pgequiv") || settingLike(sql) ||
		j.schemas.rolePathWhy(&set.Schemas, ev.Session.Database, ev.Session.User) != "" {
		return nil, sh, false
	}
	if limit, lok := queryLimit(set); lok && len(sql) > limit {
		return nil, sh, false
	}
	if encodingErr(ev) != nil {
		return nil, sh, false // ObserveQuery refuses or judges it
	}
	text := string(sql)
	if sh, ok = tag.ReadShape(text); !ok {
		return nil, sh, false
	}
	st, e, found := j.shapes.peek(&sh)
	if !found || st.Class == tag.ClassEffect || st.Class == tag.ClassRun {
		return nil, sh, false
	}
	tags := cs.guc.current()
	job = resolveJob(ev, set, &tags, text, &st, true, arrived)
	if job == nil {
		return nil, sh, true
	}
	job.shape = e
	if job.mode != ModeEnforce && job.mode != ModeAnnotate {
		return nil, sh, false // log mode judges in the background anyway
	}
	if job.sideEffects != "" || job.tagErr != nil {
		return job, sh, true // run answers these without the judge
	}
	pv, proved := j.provedNow(job)
	if !proved {
		return nil, sh, false
	}
	job.proved = &pv
	return job, sh, true
}

// settingLike reports whether observeSetting (session.go) might take sql
// as a pgequiv setting, SHOW or set_config call: such statements go to
// ObserveQuery.
func settingLike(sql []byte) bool {
	trimmed := bytes.TrimSpace(sql)
	return hasPrefixFold(trimmed, "set") || hasPrefixFold(trimmed, "reset") ||
		startsWithWord(sql, "show") || startsWithWord(sql, "discard") || sqltext.ContainsFold(sql, "set_config")
}

func hasPrefixFold(s []byte, prefix string) bool {
	return len(s) >= len(prefix) && bytes.EqualFold(s[:len(prefix)], []byte(prefix))
}
