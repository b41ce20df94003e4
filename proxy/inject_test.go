package proxy

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// TestTakeFrames: the fast relay takes the frames due before a
// ReadyForQuery as flush would write them (in order, a refusal dropped
// after the upstream's own error), or nothing while a due notice is
// deferred or they pass the limit; settle turns due deferred notices into
// their frames.
func TestTakeFrames(t *testing.T) {
	later := func(n *pgproto3.NoticeResponse) *Deferred {
		d := NewDeferred(time.Now().Add(time.Minute))
		d.Deliver(n)
		return d
	}
	notice := &pgproto3.NoticeResponse{Message: "seen"}
	for _, tc := range []struct {
		name     string
		items    []injection
		sawError bool
		limit    int
		settle   bool
		want     string
		got      taken
		left     int
	}{
		{name: "due in order", items: []injection{{seq: 1, frame: []byte("a")}, {seq: 2, frame: []byte("x")}, {seq: 1, frame: []byte("b")}},
			limit: 10, want: "ab", got: injTaken, left: 1},
		{name: "refusal after an error", items: []injection{{seq: 1, frame: []byte("n")}, {seq: 1, frame: []byte("e"), refusal: true}},
			sawError: true, limit: 10, want: "n", got: injTaken},
		{name: "refusal", items: []injection{{seq: 1, frame: []byte("e"), refusal: true}}, limit: 10, want: "e", got: injTaken},
		{name: "over the limit", items: []injection{{seq: 1, frame: []byte("abc")}}, limit: 2, got: injTooLarge, left: 1},
		{name: "deferred", items: []injection{{seq: 1, frame: []byte("a")}, {seq: 1, deferred: later(notice)}}, limit: 1000,
			got: injDeferred, left: 2},
		{name: "deferred settled", items: []injection{{seq: 1, frame: []byte("a")}, {seq: 1, deferred: later(notice)}}, limit: 1000,
			settle: true, want: "a" + string(encodeNotice(notice)), got: injTaken},
		{name: "deferred without a notice", items: []injection{{seq: 1, deferred: later(nil)}}, limit: 10, settle: true, got: injTaken},
		{name: "not due", items: []injection{{seq: 2, deferred: later(notice)}}, limit: 10, got: injTaken, left: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &injector{}
			for _, in := range tc.items {
				q.add(in)
			}
			if tc.settle {
				q.settle(1, nil)
			}
			b, got := q.takeFrames(nil, 1, tc.sawError, tc.limit)
			if got != tc.got || string(b) != tc.want {
				t.Errorf("takeFrames = %q, %d; want %q, %d", b, got, tc.want, tc.got)
			}
			if n := int(q.pending.Load()); n != tc.left || len(q.items) != tc.left {
				t.Errorf("%d pending, %d queued; want %d", n, len(q.items), tc.left)
			}
		})
	}
}
