package judgepool_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy/judgepool"
)

func exampleSchema(t testing.TB) *catalog.Schema {
	t.Helper()
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func quietLogger() *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func newPool(t testing.TB, o judgepool.Options) *judgepool.Pool {
	t.Helper()
	o.Command, o.Env = testCommand(t)
	if o.Logger == nil {
		o.Logger = quietLogger()
	}
	p, err := judgepool.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

const (
	ref  = "SELECT COUNT(*) FROM dogs"
	cand = "SELECT COUNT(dog_id) FROM dogs"
)

func judge(p judgepool.Backend, s *catalog.Schema, candidate string, timeout time.Duration) (equivalence.Verdict, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return p.Judge(ctx, s, ref, candidate, equivalence.Options{})
}

func TestPoolMatchesInProcess(t *testing.T) {
	s := exampleSchema(t)
	p := newPool(t, judgepool.Options{Workers: 2})
	local, err := judgepool.NewLocal(judgepool.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{cand, "SELECT COUNT(*) FROM owners", "SELECT COUNT(*) FROM dogs WHERE 1 = 1", "SELEC broken"} {
		want, werr := judge(local, s, c, 5*time.Second)
		for range 2 { // the second time from the worker's cache
			got, gerr := judge(p, s, c, 5*time.Second)
			if (werr == nil) != (gerr == nil) || got.Label != want.Label || got.Score != want.Score || got.Summary() != want.Summary() {
				t.Errorf("%q: pool %v (%v), in-process %v (%v)", c, got.Summary(), gerr, want.Summary(), werr)
			}
		}
	}
	if st := p.Stats(); st.Queries.Hits == 0 {
		t.Errorf("no cache hits reported by the workers: %+v", st)
	}
}

func TestPoolSurvivesFaults(t *testing.T) {
	s := exampleSchema(t)
	// A worker judging the example schema stays well under 96 MiB; a low
	// limit keeps the memory case short where page faults are slow.
	p := newPool(t, judgepool.Options{Workers: 2, MemoryLimit: 96 << 20, PollInterval: 5 * time.Millisecond})
	const budget = 500 * time.Millisecond
	cases := []struct {
		name   string
		marker string
		want   error
		count  func(judgepool.SupervisionStats) uint64
		budget time.Duration // 0: budget
	}{
		// A death is reported when the worker is seen to die, which on a
		// loaded machine (CI runs packages side by side) may take longer
		// than the hang case's budget: these assert the error, not time.
		{"fatal error", markFatal, judgepool.ErrWorkerDied, func(s judgepool.SupervisionStats) uint64 { return s.Deaths }, 10 * time.Second},
		{"exit", markExit, judgepool.ErrWorkerDied, func(s judgepool.SupervisionStats) uint64 { return s.Deaths }, 10 * time.Second},
		{"hang", markHang, context.DeadlineExceeded, func(s judgepool.SupervisionStats) uint64 { return s.DeadlineKills }, 0},
		// Growing past the limit takes page faults, slow on some machines
		// (about 230 MB/s in a sandbox, ten times slower with the CPUs
		// busy): the memory kill must come first, however long the budget.
		{"memory", markAlloc, judgepool.ErrMemoryLimit, func(s judgepool.SupervisionStats) uint64 { return s.MemoryKills }, 30 * time.Second},
		{"panic", markPanic, judgepool.ErrPanicked, func(s judgepool.SupervisionStats) uint64 { return s.Panics }, 10 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			budget := budget
			if c.budget > 0 {
				budget = c.budget
			}
			before := p.Supervision()
			start := time.Now()
			_, err := judge(p, s, cand+" /* "+c.marker+" */", budget)
			took := time.Since(start)
			if !errors.Is(err, c.want) {
				t.Fatalf("error %v, want %v", err, c.want)
			}
			// The slack beyond the promised bound (budget + 10% + 20 ms)
			// is the test's own scheduling on a loaded 2-core machine;
			// the bound itself is measured by scripts/benchmarks/bounded.sh.
			if limit := budget + budget/10 + 20*time.Millisecond + 250*time.Millisecond; took > limit {
				t.Errorf("took %v, over the budget's bound %v", took, limit)
			}
			// A deadline error comes at the deadline; the kill that
			// counts follows at the hard deadline, in the background.
			for stop := time.Now().Add(10 * time.Second); c.count(p.Supervision()) == c.count(before) && time.Now().Before(stop); {
				runtime.Gosched()
			}
			if after := p.Supervision(); c.count(after) != c.count(before)+1 {
				t.Errorf("counter %d -> %d, want one more", c.count(before), c.count(after))
			}
			// Both workers judge normally afterwards (the restart included).
			for range 4 {
				if v, err := judge(p, s, cand, 20*time.Second); err != nil || v.Label != equivalence.Equivalent {
					t.Fatalf("after the fault: %v, %v", v.Label, err)
				}
			}
		})
	}
}

func TestPoolQueuesWithinDeadline(t *testing.T) {
	s := exampleSchema(t)
	p := newPool(t, judgepool.Options{Workers: 1})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := judge(p, s, cand, 5*time.Second); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// A judgement stuck behind a hung worker times out in its own budget.
	go judge(p, s, cand+" /* "+markHang+" */", 300*time.Millisecond)
	for judgepool.Busy(p) == 0 {
		runtime.Gosched() // until the hang holds the only worker
	}
	start := time.Now()
	if _, err := judge(p, s, cand, 100*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("queued judgement: %v, want a deadline error", err)
	}
	if took := time.Since(start); took > 200*time.Millisecond {
		t.Errorf("queued judgement took %v", took)
	}
}

func TestPoolCloseLeavesNoProcess(t *testing.T) {
	s := exampleSchema(t)
	o := judgepool.Options{Workers: 3, Logger: quietLogger()}
	o.Command, o.Env = testCommand(t)
	p, err := judgepool.New(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := judge(p, s, cand+" /* "+markFatal+" */", time.Second); !errors.Is(err, judgepool.ErrWorkerDied) {
		t.Fatalf("fatal: %v", err)
	}
	pids := judgepool.WorkerPIDs(p)
	if len(pids) != 3 {
		t.Fatalf("worker pids %v", pids)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		// Reaped children no longer exist: signal 0 fails with ESRCH.
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("worker %d still exists after Close (kill 0: %v)", pid, err)
		}
	}
	if _, err := judge(p, s, cand, time.Second); !errors.Is(err, judgepool.ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
}

// TestPoolSendsOptions: the policies a worker judges with are the
// caller's, max query size included.
func TestPoolSendsOptions(t *testing.T) {
	s := exampleSchema(t)
	p := newPool(t, judgepool.Options{Workers: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	v, err := p.Judge(ctx, s, ref, cand, equivalence.Options{MaxQueryBytes: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Differences) == 0 || v.Differences[0].Component != equivalence.ComponentTooLarge {
		t.Errorf("MaxQueryBytes 10 not applied by the worker: %s", v.Summary())
	}
	col := equivalence.ColumnOrderIgnore
	v, err = p.Judge(ctx, s, "SELECT name, age FROM dogs", "SELECT age, name FROM dogs", equivalence.Options{ColumnOrder: col})
	if err != nil || v.Label != equivalence.Equivalent {
		t.Errorf("column_order ignore not applied by the worker: %s, %v", v.Summary(), err)
	}
}
