package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// scriptObserver refuses statements containing "forbidden" and adds a
// notice to statements containing "noted"; it records what it saw.
type scriptObserver struct {
	mu   sync.Mutex
	seen []string
}

func (o *scriptObserver) ObserveQuery(_ context.Context, ev *QueryEvent) Action {
	o.mu.Lock()
	o.seen = append(o.seen, string(ev.SQL))
	o.mu.Unlock()
	switch {
	case bytes.Contains(ev.SQL, []byte("forbidden")):
		return Action{Refuse: &pgproto3.ErrorResponse{Message: "pgequiv refused: " + string(ev.SQL)}}
	case bytes.Contains(ev.SQL, []byte("noted")):
		return Action{Notice: &pgproto3.NoticeResponse{Message: "pgequiv noted"}}
	}
	return Action{}
}

func TestObserverNoticeAndRefusal(t *testing.T) {
	obs := &scriptObserver{}
	opts := upstreamOpts()
	opts.Observer = obs
	p := startProxy(t, opts)
	ctx := testCtx(t, 30*time.Second)

	cfg, err := pgx.ParseConfig(p.connString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var notices []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		mu.Lock()
		notices = append(notices, n.Message)
		mu.Unlock()
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec, pgx.QueryExecModeCacheStatement} {
		t.Run(mode.String(), func(t *testing.T) {
			mu.Lock()
			notices = nil
			mu.Unlock()
			var s string
			if err := conn.QueryRow(ctx, "SELECT 'noted'", mode).Scan(&s); err != nil || s != "noted" {
				t.Fatalf("noted query: %q, %v", s, err)
			}
			mu.Lock()
			got := append([]string(nil), notices...)
			mu.Unlock()
			if len(got) != 1 || got[0] != "pgequiv noted" {
				t.Fatalf("notices %q", got)
			}

			_, err := conn.Exec(ctx, "SELECT 'forbidden'", mode)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != "42501" || pgErr.Message != "pgequiv refused: SELECT 'forbidden'" {
				t.Fatalf("refused query: %v", err)
			}
			// The connection is in sync afterwards.
			var n int
			if err := conn.QueryRow(ctx, "SELECT 11", mode).Scan(&n); err != nil || n != 11 {
				t.Fatalf("after refusal: %d, %v", n, err)
			}
		})
	}

	// Refusals inside a pipeline: three Sync groups in flight, the middle
	// one refused, then one group where a refused Parse follows a good
	// statement. Results must line up exactly as PostgreSQL would send
	// them for a failing statement.
	pl := conn.PgConn().StartPipeline(ctx)
	pl.SendQueryParams("SELECT 1", nil, nil, nil, nil)
	pl.Sync()
	pl.SendQueryParams("SELECT 'forbidden'", nil, nil, nil, nil)
	pl.Sync()
	pl.SendQueryParams("SELECT 3", nil, nil, nil, nil)
	pl.Sync()
	pl.SendQueryParams("SELECT 4", nil, nil, nil, nil)
	pl.SendQueryParams("SELECT 'forbidden' AS again", nil, nil, nil, nil)
	pl.SendQueryParams("SELECT 6", nil, nil, nil, nil)
	pl.Sync()
	if err := pl.Flush(); err != nil {
		t.Fatal(err)
	}
	got := pipelineOutcomes(t, pl)
	want := []string{"row 1", "sync", "error 42501", "sync", "row 3", "sync", "row 4", "error 42501", "sync"}
	if err := pl.Close(); err != nil {
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) {
			t.Fatalf("pipeline close: %v", err)
		}
	}
	if len(got) != len(want) || !equalStrings(got, want) {
		t.Fatalf("pipeline results %q, want %q", got, want)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT 7").Scan(&n); err != nil || n != 7 {
		t.Fatalf("after pipeline: %d, %v", n, err)
	}

	obs.mu.Lock()
	defer obs.mu.Unlock()
	// SELECT 6 followed a refused Parse in its batch, so it was discarded
	// unseen, as PostgreSQL skips to Sync after an error.
	if !contains(obs.seen, "SELECT 7") || contains(obs.seen, "SELECT 6") {
		t.Fatalf("observer saw %q", obs.seen)
	}
}

// pipelineOutcomes reads pl's results, one string each ("row V" with the
// first value, "error CODE", "sync"), until a Sync once there are at
// least 8, or 12 results in all.
func pipelineOutcomes(t *testing.T, pl *pgconn.Pipeline) []string {
	t.Helper()
	var got []string
	for range 12 {
		res, err := pl.GetResults()
		switch r := res.(type) {
		case *pgconn.ResultReader:
			rr := r.Read()
			if rr.Err != nil {
				var pgErr *pgconn.PgError
				if errors.As(rr.Err, &pgErr) {
					got = append(got, "error "+pgErr.Code)
				} else {
					got = append(got, "error "+rr.Err.Error())
				}
			} else {
				got = append(got, "row "+string(rr.Rows[0][0]))
			}
		case *pgconn.PipelineSync:
			got = append(got, "sync")
		case nil:
			if err != nil {
				var pgErr *pgconn.PgError
				if errors.As(err, &pgErr) {
					got = append(got, "error "+pgErr.Code)
				} else {
					t.Fatalf("pipeline: %v (so far %q)", err, got)
				}
			}
		}
		if len(got) > 0 && got[len(got)-1] == "sync" && len(got) >= 8 {
			break
		}
	}
	return got
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestObserverRefusedParseDiscardsUntilSync: after a refused Parse the
// proxy drops everything up to Sync, including a simple Query, exactly as
// PostgreSQL does after an error, and answers with one error and one
// ReadyForQuery.
func TestObserverRefusedParseDiscardsUntilSync(t *testing.T) {
	obs := &scriptObserver{}
	opts := upstreamOpts()
	opts.Observer = obs
	p := startProxy(t, opts)
	ctx := testCtx(t, 30*time.Second)
	_, fe := rawStartup(t, ctx, p)
	fe.Send(&pgproto3.Parse{Query: "SELECT 'forbidden'"})
	fe.Send(&pgproto3.Query{String: "SELECT 'ignored'"})
	fe.Send(&pgproto3.Bind{})
	fe.Send(&pgproto3.Execute{})
	fe.Send(&pgproto3.Sync{})
	fe.Send(&pgproto3.Query{String: "SELECT 'seen'"})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(got) < 8 {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		switch m := msg.(type) {
		case *pgproto3.ErrorResponse:
			got = append(got, "E "+m.Code)
		case *pgproto3.ReadyForQuery:
			got = append(got, "Z")
		case *pgproto3.DataRow:
			got = append(got, "D "+string(m.Values[0]))
		default:
			got = append(got, fmt.Sprintf("%T", m)[len("*pgproto3."):])
		}
		if len(got) >= 2 && got[len(got)-1] == "Z" && contains(got, "D seen") {
			break
		}
	}
	want := []string{"E 42501", "Z", "RowDescription", "D seen", "CommandComplete", "Z"}
	if !equalStrings(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if contains(obs.seen, "SELECT 'ignored'") {
		t.Fatalf("observer saw a discarded query: %q", obs.seen)
	}
}

type panickyObserver struct{}

func (panickyObserver) ObserveQuery(_ context.Context, ev *QueryEvent) Action {
	if bytes.Contains(ev.SQL, []byte("boom")) {
		panic("observer bug")
	}
	return Action{}
}

// TestObserverPanicFailsOpen: an observer panic is contained; the
// statement runs and the proxy keeps serving.
func TestObserverPanicFailsOpen(t *testing.T) {
	opts := upstreamOpts()
	opts.Observer = panickyObserver{}
	p := startProxy(t, opts)
	ctx := testCtx(t, 30*time.Second)
	conn := p.connect(t, ctx, pgtest.SuperUser, "")
	var s string
	if err := conn.QueryRow(ctx, "SELECT 'boom'").Scan(&s); err != nil || s != "boom" {
		t.Fatalf("query with panicking observer: %q, %v", s, err)
	}
	if err := conn.QueryRow(ctx, "SELECT 'after'").Scan(&s); err != nil || s != "after" {
		t.Fatalf("after panic: %q, %v", s, err)
	}
}

func TestDeferred(t *testing.T) {
	stop := make(chan struct{})
	d := NewDeferred(time.Now().Add(time.Minute))
	n := &pgproto3.NoticeResponse{Message: "m"}
	if !d.Deliver(n) || d.Deliver(n) {
		t.Fatal("first Deliver must succeed, the second fail")
	}
	if got := d.wait(stop, nil); got != n {
		t.Fatalf("wait = %v", got)
	}
	d = NewDeferred(time.Now()) // already past its deadline
	if got := d.wait(stop, nil); got != nil {
		t.Fatalf("expired wait = %v", got)
	}
	if d.Deliver(n) {
		t.Fatal("Deliver after the proxy gave up must report false")
	}
	d = NewDeferred(time.Now().Add(time.Minute))
	close(stop)
	if got := d.wait(stop, nil); got != nil || d.Deliver(n) {
		t.Fatal("a stopped wait abandons the notice")
	}
	var q injector
	d = NewDeferred(time.Now().Add(time.Minute))
	q.add(injection{seq: 1, deferred: d})
	q.close()
	q.close()
	if d.Deliver(n) {
		t.Fatal("closing the connection abandons queued notices")
	}
	d = NewDeferred(time.Now().Add(time.Minute))
	if got := d.wait(nil, q.stop); got != nil || d.Deliver(n) {
		t.Fatal("a closed injector ends waits")
	}
}
