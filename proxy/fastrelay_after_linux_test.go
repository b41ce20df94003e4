//go:build linux

package proxy

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// afterObserver answers flagged Queries on the event loop (ObserveQuick)
// with After work that reports the statement on ran: a statement
// mentioning "panic" has After work that panics instead.
type afterObserver struct {
	markObserver
	ran chan string
}

func (o *afterObserver) ObserveQuick(_ context.Context, ev *QueryEvent) (QuickAction, bool) {
	sql := string(ev.SQL)
	after := func() { o.ran <- sql }
	if strings.Contains(sql, "panic") {
		after = func() { panic("after work of " + sql) }
	}
	return QuickAction{Notice: &pgproto3.NoticeResponse{Message: "quick"}, After: after}, true
}

// answerEachBackend is a fake upstream that answers every message after
// a trusting startup with a CommandComplete and a ReadyForQuery.
func answerEachBackend(t *testing.T) string {
	t.Helper()
	return fakeBackend(t, func(be *pgproto3.Backend, conn net.Conn) {
		if err := fakeStartup(be); err != nil {
			t.Error(err)
			return
		}
		for {
			if _, err := be.Receive(); err != nil {
				return
			}
			be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")})
			be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
			if err := be.Flush(); err != nil {
				return
			}
		}
	})
}

// startAnswering starts a proxy, with obs as its observer, in front of
// answerEachBackend.
func startAnswering(t *testing.T, obs QueryObserver) *testProxy {
	t.Helper()
	opts := fakeOpts(answerEachBackend(t))
	opts.Observer = obs
	return startProxy(t, opts)
}

// TestFastRelayAfterWork: a QuickAction's After work runs on the loop,
// without another statement or event to prompt it, exactly once per
// statement; a panic in it ends neither the loop nor the connection.
func TestFastRelayAfterWork(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	obs := &afterObserver{ran: make(chan string, 8)}
	p := startAnswering(t, obs)
	c := rawFakeClient(t, ctx, p)
	fe := pgproto3.NewFrontend(c, c)
	for _, sql := range []string{"select 1 -- observe me", "select 2 -- observe me, panic", "select 3 -- observe me"} {
		fe.Send(&pgproto3.Query{String: sql})
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		var notices int
		for done := false; !done; {
			msg, err := fe.Receive()
			if err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			switch msg.(type) {
			case *pgproto3.NoticeResponse:
				notices++
			case *pgproto3.ReadyForQuery:
				done = true
			}
		}
		if notices != 1 {
			t.Errorf("%s: %d notices, want 1", sql, notices)
		}
		if strings.Contains(sql, "panic") {
			continue
		}
		awaitAfterWork(t, ctx, obs.ran, sql)
	}
	afterWorkDone(t, p, obs.ran)
}

// awaitAfterWork waits for the After work of sql to report on ran.
func awaitAfterWork(t *testing.T, ctx context.Context, ran <-chan string, sql string) {
	t.Helper()
	select {
	case got := <-ran:
		if got != sql {
			t.Errorf("After work ran for %q, want %q", got, sql)
		}
	case <-ctx.Done():
		t.Fatalf("After work of %q never ran", sql)
	}
}

// afterWorkDone checks that no After work ran beyond those awaited and
// that the connection stayed on the fast relay.
func afterWorkDone(t *testing.T, p *testProxy, ran <-chan string) {
	t.Helper()
	select {
	case got := <-ran:
		t.Errorf("After work ran again, for %q", got)
	default:
	}
	if p.relay.demoted.Load() > 0 || p.relay.goroutine.Load() > 0 {
		t.Error("the connection left the fast relay")
	}
}
