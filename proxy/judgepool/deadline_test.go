package judgepool_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/proxy/judgepool"
)

// expiringCtx is a context whose deadline the test makes pass: Deadline
// reports at (which sets the worker's budget and its kill), while Done
// closes, with DeadlineExceeded, when the test calls expire.
type expiringCtx struct {
	context.Context
	at   time.Time
	done chan struct{}
	once sync.Once
}

func newExpiringCtx(at time.Time) *expiringCtx {
	return &expiringCtx{Context: context.Background(), at: at, done: make(chan struct{})}
}

func (c *expiringCtx) Deadline() (time.Time, bool) { return c.at, true }
func (c *expiringCtx) Done() <-chan struct{}       { return c.done }
func (c *expiringCtx) expire()                     { c.once.Do(func() { close(c.done) }) }
func (c *expiringCtx) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// TestPoolAnswersAtTheDeadline: once a judgement's deadline has passed,
// Judge answers (a deadline error) at once, whether it is queued behind a
// busy worker or its worker is still judging; the worker is supervised,
// and killed, in the background. Ordering, not timing: the hung worker is
// still held when both answers come.
func TestPoolAnswersAtTheDeadline(t *testing.T) {
	s := exampleSchema(t)
	p := newPool(t, judgepool.Options{Workers: 1})
	type result struct {
		v   equivalence.Verdict
		err error
	}
	judgeCtx := func(ctx context.Context, candidate string) <-chan result {
		ch := make(chan result, 1)
		go func() {
			v, err := p.Judge(ctx, s, ref, candidate, equivalence.Options{})
			ch <- result{v, err}
		}()
		return ch
	}
	// The hang ignores its budget; the supervisor kills it 10% + 20 ms
	// after a, which the test never reaches before both answers.
	hung := newExpiringCtx(time.Now().Add(3 * time.Second))
	hungRes := judgeCtx(hung, cand+" /* "+markHang+" */")
	for judgepool.Busy(p) == 0 {
		runtime.Gosched()
	}
	queued := newExpiringCtx(time.Now().Add(3 * time.Second))
	queuedRes := judgeCtx(queued, cand)
	for judgepool.Waiting(p) == 0 {
		runtime.Gosched()
	}
	wait := func(what string, ch <-chan result) {
		t.Helper()
		select {
		case r := <-ch:
			if !errors.Is(r.err, context.DeadlineExceeded) {
				t.Errorf("%s: %v, want a deadline error", what, r.err)
			}
		case <-time.After(10 * time.Second): // a failure detector, not a synchronization
			t.Fatalf("%s: no answer after its deadline passed", what)
		}
		if judgepool.Busy(p) != 1 {
			t.Errorf("%s: answered after the hung worker was killed, not at its deadline", what)
		}
	}
	queued.expire()
	wait("queued judgement", queuedRes)
	hung.expire()
	wait("judgement on a hung worker", hungRes)
	// The worker is killed at its hard deadline and restarted (a restart
	// starts a process: slow on a loaded machine).
	v, err := judge(p, s, cand, 30*time.Second)
	if err != nil || v.Label != equivalence.Equivalent {
		t.Fatalf("after the kill: %v, %v", v.Label, err)
	}
}
