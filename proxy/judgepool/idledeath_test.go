//go:build linux

package judgepool_test

import (
	"errors"
	"slices"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/proxy/judgepool"
)

// exitedNotReaped waits until the child pid has exited, without reaping
// it (WNOWAIT): the kill is then done, as for a worker that died a while
// ago, and the pool's own reaping is what the test checks. ECHILD: the
// pool reaped it already.
func exitedNotReaped(t *testing.T, pid int) {
	t.Helper()
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		switch {
		case err == nil, errors.Is(err, unix.ECHILD):
			return
		case errors.Is(err, unix.EINTR):
			continue
		}
		t.Fatalf("waitid %d: %v", pid, err)
	}
}

// TestPoolIdleWorkerDeath (issue 34, item 9): a worker killed while idle
// (SIGKILL, as the OOM killer sends) is reaped, not left a zombie, and
// started again; the judgement that finds it dead is judged on a live
// worker instead of failing with ErrWorkerDied, which enforce mode with
// enforce_unknown off would forward. With one worker every judgement
// meets the dead one; with two, either.
func TestPoolIdleWorkerDeath(t *testing.T) {
	s := exampleSchema(t)
	for _, workers := range []int{1, 2} {
		p := newPool(t, judgepool.Options{Workers: workers})
		for round := range 3 {
			old := judgepool.WorkerPIDs(p)
			for _, pid := range old {
				if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				exitedNotReaped(t, pid)
			}
			v, err := judge(p, s, cand, 10*time.Second)
			if err != nil || v.Label != equivalence.Equivalent {
				t.Fatalf("%d workers, round %d: the judgement after the kill: %v (%v)", workers, round, v.Label, err)
			}
			now := judgepool.WorkerPIDs(p) // waits for restarts in progress
			if len(now) != workers {
				t.Fatalf("%d workers, round %d: %d live", workers, round, len(now))
			}
			for _, pid := range old {
				if slices.Contains(now, pid) {
					t.Fatalf("round %d: killed worker %d still in the pool %v", round, pid, now)
				}
				// Reaped: a zombie still answers kill(pid, 0).
				if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
					t.Fatalf("round %d: killed worker %d not reaped: kill(0) = %v", round, pid, err)
				}
			}
		}
		if st := p.Supervision(); st.Deaths != 3*uint64(workers) || st.Restarts != 3*uint64(workers) {
			t.Errorf("%d workers: supervision %+v, want %d deaths and restarts", workers, st, 3*workers)
		}
	}
}
