package judging

import (
	"context"
	"fmt"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
)

// judgeWithin loads the schema and judges job, and answers by ctx's
// deadline: whatever still runs then (a schema load, a judge that stops
// 10% + 20 ms past its context, a worker the pool kills later) ends in
// the background, releasing its judge pool slot, while the query gets
// its timeout at once. Under load that slack,
// and a judge worker's, put answers up to 0.4 s past a 2 s budget.
func (j *Judging) judgeWithin(ctx context.Context, job *judgeJob, v *equivalence.Verdict) error {
	type result struct {
		v   equivalence.Verdict
		err error
	}
	res := make(chan result, 1)
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		schema, err := j.schemas.get(ctx, &job.set.Schemas, job.sess.Database)
		var r result
		if why := j.volatileCall(job); err == nil && why != "" {
			r.err = &sideEffectsError{why: why} // read with the schema just loaded
		} else if why := j.shadowCall(job); err == nil && why != "" {
			r.err = fmt.Errorf("%w: %s", ErrSessionSchema, why) // likewise
		} else if why := j.schemas.rolePathWhy(&job.set.Schemas, job.sess.Database, job.sess.User); err == nil && why != "" && job.mode == ModeEnforce {
			r.err = fmt.Errorf("%w: %s", ErrSessionSchema, why) // likewise
		} else if err == nil {
			r.v, r.err = j.judge(ctx, schema, job)
		} else {
			r.err = err
		}
		res <- r
	}()
	select {
	case r := <-res:
		*v = r.v
		return r.err
	case <-ctx.Done():
		select {
		case r := <-res: // both ready: the answer wins
			*v = r.v
			return r.err
		default:
		}
		return fmt.Errorf("judging: %w", ctx.Err())
	}
}

// judgeDeadline is when a judgement that started at start must stop:
// verdict_timeout is the client's wait for its answer, and delivering a
// verdict (a refusal's round trip for its ReadyForQuery, the notice's
// write, the client's read) takes time of its own, most of all when
// the proxy, PostgreSQL and the clients share the CPUs. On two cores
// shared with 150 busy backends, answers came up to 300 ms after the
// verdict; the judge keeps deliveryReserve of the budget for that.
func judgeDeadline(start time.Time, set *JudgeSettings) time.Time {
	return start.Add(set.VerdictTimeout - deliveryReserve(set.VerdictTimeout))
}

// deliveryReserve is the part of a verdict_timeout kept for delivering
// the verdict: 5%, at most 100 ms.
func deliveryReserve(timeout time.Duration) time.Duration {
	return min(timeout/20, 100*time.Millisecond)
}
