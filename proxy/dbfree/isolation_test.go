package dbfree

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy/judgepool"
)

// faultyJudge fails as a judge can: a panic, a dead worker, a memory
// kill, or by answering normally (with judge). It runs inside the judge
// pool, whose guard is the only one on the path.
func faultyJudge(judge judgepool.JudgeFunc) judgepool.JudgeFunc {
	return func(ctx context.Context, s *catalog.Schema, ref, cand string, o equivalence.Options) (equivalence.Verdict, error) {
		switch {
		case strings.Contains(cand, "PANIC"):
			panic("judge bug")
		case strings.Contains(cand, "DIED"):
			return equivalence.Verdict{}, judgepool.ErrWorkerDied
		case strings.Contains(cand, "MEMORY"):
			return equivalence.Verdict{}, judgepool.ErrMemoryLimit
		}
		return judge(ctx, s, ref, cand, o)
	}
}

// TestJudgeFailuresKeepTheConnection: a panic in the judge (recovered by
// the judge pool, as a real judge's would be) or a failed judge worker
// costs that statement (XX000), never the connection or the server.
func TestJudgeFailuresKeepTheConnection(t *testing.T) {
	plain, err := equivalence.NewJudger(equivalence.JudgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	local, err := judgepool.NewLocal(judgepool.LocalOptions{Judge: faultyJudge(plain.Judge)})
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, Options{Judger: local})
	ctx := testCtx(t)
	conn := srv.connect(t, ctx, pgx.QueryExecModeExec)
	for _, c := range []struct{ cand, detail string }{
		{"SELECT 1 /* PANIC */", "judge bug"},
		{"SELECT 1 /* DIED */", judgepool.ErrWorkerDied.Error()},
		{"SELECT 1 /* MEMORY */", "exceeded memory limit"},
	} {
		var label string
		err := conn.QueryRow(ctx, "SELECT label FROM pgequiv.check($1, $2)", "SELECT 1", c.cand).Scan(&label)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != codeInternalError || !strings.Contains(pe.Detail, c.detail) {
			t.Errorf("%s: %v, want XX000 with detail %q", c.cand, err, c.detail)
		}
		if err := conn.QueryRow(ctx, "SELECT label FROM pgequiv.check($1, $2)", "SELECT 1", "SELECT 1").Scan(&label); err != nil || label != "equivalent" {
			t.Fatalf("after %s: %q, %v", c.cand, label, err)
		}
	}
	if n := srv.JudgePanics(); n != 1 {
		t.Errorf("JudgePanics %d, want 1", n)
	}
}
