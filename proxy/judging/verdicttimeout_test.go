package judging

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// TestJudgeVerdictTimeout: a verdict not ready when the response ends is
// logged, counted and shown in SHOW VERDICTS; the client's result is not
// held back beyond the budget, and carries "no verdict in time" instead. In enforce mode with enforce_unknown, a
// timeout refuses.
func TestJudgeVerdictTimeout(t *testing.T) {
	set := annotateSettings(t)
	set.VerdictTimeout = 100 * time.Millisecond
	e := startJudgeProxy(t, set, JudgingOptions{})
	release := make(chan struct{})
	e.j.setTestingKnobs(judgingKnobs{beforeJudge: func(context.Context) { <-release }})
	ctx := testCtx(t, 60*time.Second)
	conn, notices := e.connectNotices(t, ctx, kennelDB)
	start := time.Now()
	var n int
	if err := conn.QueryRow(ctx, withComment(countOwner, countStar)).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d, %v", n, err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the response waited %v for the verdict", took)
	}
	close(release) // the judgement finishes after the response ended
	e.j.Wait()
	if ns := notices(); len(ns) != 1 || !strings.Contains(ns[0], "no verdict in time") {
		t.Fatalf("notices %q: want only the proxy's own 'no verdict in time', not the late verdict", ns)
	}
	if logs := e.logs.String(); !strings.Contains(logs, "pgequiv verdict not ready when the response ended") {
		t.Fatalf("late verdict not logged:\n%s", logs)
	}
	if st := statMap(e.j); st["late"] != 1 || st["timeouts"] != 1 {
		t.Fatalf("stats %v", st)
	}
	if v := e.j.RecentVerdicts(); len(v) != 1 || v[0].Action != "late" || v[0].Label != "timeout" {
		t.Fatalf("recent %+v", v)
	}

	// Enforce: a timeout is unknown, refused with enforce_unknown.
	set.Mode, set.EnforceUnknown = ModeEnforce, true
	if err := e.j.Reload(set); err != nil {
		t.Fatal(err)
	}
	e.j.setTestingKnobs(judgingKnobs{beforeJudge: func(ctx context.Context) { <-ctx.Done() }})
	_, err := conn.Exec(ctx, withComment(countOwner, countStar))
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified || !strings.Contains(pgErr.Message, "no verdict in time") {
		t.Fatalf("enforce timeout: %v", err)
	}
}

// TestJudgeClientLeavesDuringDeferredNotice: a client that gives up on a
// query while the proxy holds its ReadyForQuery for a notice (pgconn sends
// a CancelRequest, then Terminate, and waits 15s for the server to close)
// does not keep the connection alive until the verdict timeout.
func TestJudgeClientLeavesDuringDeferredNotice(t *testing.T) {
	set := annotateSettings(t)
	set.VerdictTimeout = time.Minute
	e := startJudgeProxy(t, set, JudgingOptions{})
	release := make(chan struct{})
	defer close(release) // the judgement ends; the cleanup waits for it
	e.j.setTestingKnobs(judgingKnobs{beforeJudge: func(context.Context) { <-release }})
	ctx := testCtx(t, 60*time.Second)
	conn, err := pgconn.Connect(ctx, dbConnString(e.Host, e.Port, pgtest.SuperUser, "", kennelDB))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	qctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := conn.Exec(qctx, withComment(countOwner, countStar)).ReadAll(); err == nil {
		t.Fatal("the query returned before its notice was ready")
	}
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	defer wcancel()
	e.waitConnsEnd(t, wctx)
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("connection ended after %v, after the client's Terminate", took)
	}
}
