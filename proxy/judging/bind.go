package judging

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pgequiv/pgequiv/cache"
	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/equivalence/bind"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// A parameterized statement ($1, ...) is judged at Parse for every value
// of its parameters. The judge can prove such a pair equivalent, but it
// cannot run a query with a free $n to refute one, so a wrong query is
// mostly unknown there, and enforce (with enforce_unknown off) would let
// it through: the normal case for pgx, lib/pq, node-postgres, psycopg and
// pgbench -M prepared. So where the Parse verdict does not pass, the
// statement is judged again at each Bind, its values written as
// literals into the candidate and into the reference's placeholders
// (equivalence/bind), and enforce refuses the Bind before the server sees
// it.

// bindJudge is what the connection keeps for a statement judged at Bind.
type bindJudge struct {
	job *judgeJob // the Parse's: reference, candidate with $n, session, mode
	// consts are the candidate's constants, numbered as the reference's
	// placeholders number them (after the candidate's own parameters).
	consts map[int]string
	// settled: the Parse verdict passed (annotate and log modes learn it
	// in the background); Binds are then not judged again. parsed is
	// closed once the Parse verdict is in.
	settled atomic.Bool
	parsed  chan struct{}
	once    sync.Once
	// params: the statement has parameters, so a Bind's values decide;
	// without them every Bind runs the text judged at Parse, and only a
	// change of the session's reference calls for a new judgement.
	params bool
	// out is the Parse verdict, set before parsed is closed. repeated:
	// a Bind has come since the Parse, whose own notice and record
	// stood for the first execution; later ones get theirs (annotate
	// and log modes count executions, issue 34 item 7).
	out      judgeOutcome
	repeated atomic.Bool
}

// newBindJudge returns the Bind state for a Parse job. Every prepared
// statement with a reference is seen again at each Bind: one with
// parameters is judged with its values, and one without them under the
// session reference in force then (a driver's statement cache runs a
// statement prepared under reference A after SET pgequiv.reference =
// 'B'), and each execution is counted.
func (j *Judging) newBindJudge(job *judgeJob) *bindJudge {
	bj := &bindJudge{job: job, parsed: make(chan struct{}), params: tag.HasParams(job.candidate)}
	if p, ok := tag.Parameterize(job.candidate); ok {
		bj.consts = p.Consts
	}
	return bj
}

// deferEnforce reports whether an enforce-mode Parse verdict leaves the
// statement to be judged at Bind: it did not pass, and it is not a
// refutation that holds whatever the values (which refuses the Parse, as
// without parameters). A counterexample naming parameter values shows
// only that some values differ (`$1` against the reference's literal 5
// differs for `$1 = 6`): the values bound decide.
func (bj *bindJudge) deferEnforce(job *judgeJob, out judgeOutcome) bool {
	bj.settle(job, out)
	if out.err == nil && job.set.Options.Passes(out.v) {
		return false
	}
	if out.err == nil && out.v.Label == equivalence.NotEquivalent {
		ce := out.v.Counterexample
		return ce != nil && len(ce.Params) > 0
	}
	return true
}

// settle marks the statement settled when the Parse verdict passes.
func (bj *bindJudge) settle(job *judgeJob, out judgeOutcome) {
	if bj == nil {
		return
	}
	bj.once.Do(func() {
		if out.err == nil && job.set.Options.Passes(out.v) {
			bj.settled.Store(true)
		}
		bj.out = out
		close(bj.parsed)
	})
}

// parseOutcome returns the Parse verdict, if it is in.
func (bj *bindJudge) parseOutcome() (judgeOutcome, bool) {
	select {
	case <-bj.parsed:
		return bj.out, true
	default:
		return judgeOutcome{}, false
	}
}

// waitParsed waits, until deadline, for the Parse verdict; it reports
// whether that verdict passed.
func (bj *bindJudge) waitParsed(deadline time.Time) bool {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-bj.parsed:
	case <-t.C:
	}
	return bj.settled.Load()
}

// orNil keeps a nil *bindJudge from becoming a non-nil Action.Bind.
func (bj *bindJudge) orNil() any {
	if bj == nil {
		return nil
	}
	return bj
}

// bind writes ev's values into the candidate and into ref (the
// reference's SQL).
func (bj *bindJudge) bind(ev *proxy.BindEvent, ref string) (cand, boundRef string, err error) {
	vals := make(map[int]string, len(ev.Values)+len(bj.consts))
	for k, v := range bj.consts {
		vals[k] = v
	}
	own := make(map[int]string, len(ev.Values))
	for i, p := range bind.FromWire(ev.Values, ev.ParamOIDs, ev.Formats) {
		lit, err := bind.Literal(p)
		if err != nil {
			return "", "", fmt.Errorf("parameter $%d: %w", i+1, err)
		}
		if err := bindEncodingErr(ev, lit); err != nil {
			return "", "", fmt.Errorf("parameter $%d: %w", i+1, err)
		}
		own[i+1], vals[i+1] = lit, lit
	}
	cand, ok := bind.Substitute(bj.job.candidate, own)
	if !ok {
		return "", "", errors.New("the statement cannot be scanned to bind its parameters")
	}
	if boundRef, ok = bind.Substitute(ref, vals); !ok {
		return "", "", errors.New("the reference cannot be scanned to bind its parameters")
	}
	return cand, boundRef, nil
}

// ObserveBind implements BindObserver: it judges a Bind of a statement
// whose Parse verdict did not settle it, with the bound values.
func (j *Judging) ObserveBind(ctx context.Context, ev *proxy.BindEvent) proxy.Action {
	set := j.set.Load()
	if set.Mode == ModeOff || ev.State == parseSeen {
		return proxy.Action{}
	}
	if ev.State == nil {
		return j.gateBind(ev, set)
	}
	bj, ok := ev.State.(*bindJudge)
	if !ok {
		return proxy.Action{}
	}
	parent := bj.job
	ref, refErr, same := parent.ref, error(nil), true
	if ref.Source == tag.FromSession {
		// A session setting applies to the executions while it is in
		// force (a SET LOCAL ends with its transaction, a statement
		// prepared under one reference may run under another).
		cur := stateOf(ev.Session).guc.current()
		r, found, err := tag.ResolveIn(parent.candidate, &cur, set.Catalog, parent.sess.Database)
		switch {
		case err != nil:
			refErr = err
		case !found, r.Source == tag.FromCatalogMatch && r.Database != "" && r.Database != parent.sess.Database:
			return proxy.Action{} // no reference in force now
		}
		same = err == nil && r.SQL == ref.SQL
		if err == nil {
			ref = r
		}
	}
	mode := set.Mode
	if ref.Mode != "" {
		mode = JudgeMode(ref.Mode)
	}
	st := &stateOf(ev.Session).judge
	if mode == ModeEnforce {
		// Judged at its Parse against the schema then; the session may
		// have changed how it resolves names since (sessionschema.go).
		if why := st.schema.why(); why != "" {
			j.stats.tagged.Add(1)
			job := &judgeJob{start: time.Now(), set: set, sess: parent.sess, ref: ref, mode: mode, parent: parent.parent,
				direct: true, candidate: parent.candidate, tagErr: fmt.Errorf("%w: %s", ErrSessionSchema, why)}
			job.deadline = judgeDeadline(job.start, set)
			return j.enforce(job, j.run(ctx, job))
		}
	}
	if same && bj.settled.Load() && mode == ModeEnforce {
		return proxy.Action{} // annotate and log count the execution (bindLater)
	}
	job := &judgeJob{start: time.Now(), set: set, sess: parent.sess, ref: ref, mode: mode,
		parent: parent.parent, direct: true, names: parent.names}
	job.deadline = judgeDeadline(job.start, set)
	if job.preset = tooLargeBind(set, ev, parent.candidate); job.preset != nil { // size.go
		job.candidate = parent.candidate // values over max_query_size are not written in
	} else {
		job.candidate, job.ref.SQL, job.tagErr = bj.bind(ev, ref.SQL)
	}
	if job.tagErr != nil || refErr != nil {
		// Judged on what the statement is, its placeholders left as they
		// are: the verdict says why it is not judged for these values.
		job.candidate, job.ref.SQL = parent.candidate, ref.SQL
		if refErr != nil {
			job.tagErr = refErr
		}
	}
	if job.mode != ModeEnforce {
		return j.bindLater(job, bj, same)
	}
	j.stats.tagged.Add(1)
	if job.tagErr != nil {
		return j.enforce(job, j.run(ctx, job))
	}
	key := boundKey{set: set, sum: sha256.Sum256([]byte(job.ref.SQL + "\x00" + job.candidate))}
	if out, ok := st.boundGet(key); ok {
		return j.enforce(job, out)
	}
	out := j.run(ctx, job)
	if out.err == nil && !out.timedOut && job.preset == nil { // a too-large verdict is for those values only
		st.boundAdd(key, out)
	}
	return j.enforce(job, out)
}

// bindLater judges a Bind in annotate or log mode, off the query's path:
// the Parse verdict, judged in the background too, may be in only after
// the Bind, and if it passed the Bind is not judged.
func (j *Judging) bindLater(job *judgeJob, bj *bindJudge, sameRef bool) proxy.Action {
	var d *proxy.Deferred
	if job.mode == ModeAnnotate {
		d = proxy.NewDeferred(job.deadline.Add(deferredGrace))
	}
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		if sameRef && (bj.waitParsed(job.deadline) || !bj.params) {
			// The Parse verdict holds for this execution too.
			out, ok := bj.parseOutcome()
			if !ok || !bj.repeated.Swap(true) {
				if d != nil {
					d.Deliver(nil) // the Parse's notice stands for the first execution
				}
				return
			}
			rep := *bj.job
			rep.start = job.start
			j.stats.tagged.Add(1)
			if d != nil {
				j.notify(&rep, d, out)
				return
			}
			j.record(&rep, out, "logged")
			return
		}
		j.stats.tagged.Add(1)
		out := j.run(context.Background(), job)
		if d != nil {
			j.notify(job, d, out)
			return
		}
		j.record(job, out, "logged")
	}()
	if d == nil {
		return proxy.Action{}
	}
	return proxy.Action{Later: d}
}

// boundKey identifies a bound pair under the settings that judged it.
type boundKey struct {
	set *JudgeSettings
	sum [sha256.Size]byte
}

// boundCache keeps a connection's recent verdicts on bound values: an
// application binds the same few values again and again.
type boundCache struct {
	c *cache.Cache[boundKey, judgeOutcome]
}

// boundCacheEntries bounds a connection's cache of bound verdicts.
const boundCacheEntries = 128

func (st *judgeConnState) boundGet(k boundKey) (judgeOutcome, bool) {
	if st.bound == nil {
		return judgeOutcome{}, false
	}
	return st.bound.c.Get(k)
}

func (st *judgeConnState) boundAdd(k boundKey, out judgeOutcome) {
	if st.bound == nil {
		c, err := cache.New(cache.Options[boundKey, judgeOutcome]{MaxEntries: boundCacheEntries})
		if err != nil {
			return // constant options: cannot fail
		}
		st.bound = &boundCache{c: c}
	}
	st.bound.c.Add(k, out)
}

// purge forgets the verdicts: the schema they were judged under changed.
func (b *boundCache) purge() {
	if b != nil {
		b.c.Purge()
	}
}
