//go:build linux

package proxy

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// finishObserver answers flagged Queries on the event loop with a Finish
// (QuickAction.Finish): the notice names the statement and how many bytes
// the proxy had sent upstream when the answer was finished; the After
// work reports the statement on ran. A statement mentioning "panic" has a
// Finish that panics.
type finishObserver struct {
	markObserver
	sent *atomic.Uint64 // the proxy's bytes to the upstream, set once it runs
	ran  chan string
}

func (o *finishObserver) ObserveQuick(_ context.Context, ev *QueryEvent) (QuickAction, bool) {
	sql := string(ev.SQL) // ev's slices are the loop's: copy now
	return QuickAction{Finish: func() (*pgproto3.NoticeResponse, func()) {
		if strings.Contains(sql, "panic") {
			panic("finishing " + sql)
		}
		n := &pgproto3.NoticeResponse{Message: sql, Hint: strconv.FormatUint(o.sent.Load(), 10)}
		return n, func() { o.ran <- sql }
	}}, true
}

// TestFastRelayFinishesAfterSending: an answer with a Finish is finished
// once its statement is sent upstream (the bytes relayed by then include
// it), and its notice still comes just before the statement's own
// ReadyForQuery, for pipelined statements too; its After work runs once;
// a Finish that panics costs the notice, not the statement, the loop or
// the connection.
func TestFastRelayFinishesAfterSending(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	obs := &finishObserver{ran: make(chan string, 8)}
	p := startAnswering(t, obs)
	obs.sent = &p.relay.bytes[dirToUpstream].Uint64
	c := rawFakeClient(t, ctx, p)
	fe := pgproto3.NewFrontend(c, c)
	for _, tc := range []struct {
		name  string
		batch []string // sent in one write
	}{
		{"one statement", []string{"select 1 -- observe me"}},
		{"pipelined", []string{"select 2 -- observe me", "select 3", "select 4 -- observe me"}},
		{"finish panics", []string{"select 5 -- observe me, panic", "select 6 -- observe me"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := p.relay.bytes[dirToUpstream].Load()
			var upto []uint64 // bytes up to the end of each statement
			end := base
			for _, sql := range tc.batch {
				q := &pgproto3.Query{String: sql}
				b, err := q.Encode(nil)
				if err != nil {
					t.Fatal(err)
				}
				end += uint64(len(b))
				upto = append(upto, end)
				fe.Send(q)
			}
			if err := fe.Flush(); err != nil {
				t.Fatal(err)
			}
			for i, sql := range tc.batch {
				var notices []*pgproto3.NoticeResponse
				for done := false; !done; {
					msg, err := fe.Receive()
					if err != nil {
						t.Fatalf("%s: %v", sql, err)
					}
					switch m := msg.(type) {
					case *pgproto3.NoticeResponse:
						notices = append(notices, &pgproto3.NoticeResponse{Message: m.Message, Hint: m.Hint})
					case *pgproto3.ErrorResponse:
						t.Fatalf("%s: %s", sql, m.Message)
					case *pgproto3.ReadyForQuery:
						done = true
					}
				}
				want := 1
				if !strings.Contains(sql, "observe me") || strings.Contains(sql, "panic") {
					want = 0
				}
				if len(notices) != want {
					t.Fatalf("%s: %d notices, want %d", sql, len(notices), want)
				}
				if want == 0 {
					continue
				}
				if notices[0].Message != sql {
					t.Errorf("notice before the ReadyForQuery of %q is for %q", sql, notices[0].Message)
				}
				if got, err := strconv.ParseUint(notices[0].Hint, 10, 64); err != nil || got < upto[i] {
					t.Errorf("%s: finished with %s bytes sent upstream, before the statement (up to %d bytes) was", sql, notices[0].Hint, upto[i])
				}
				awaitAfterWork(t, ctx, obs.ran, sql)
			}
		})
	}
	afterWorkDone(t, p, obs.ran)
}
