//go:build linux

package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// TestFastRelayObservedMidStream: a statement for the observer arrives,
// between two others, while the upstream is halfway through a large row.
// Where it fits the buffer, the fast relay keeps the connection: the
// client's bytes wait while ObserveQuery runs on a goroutine and the
// row goes on. Where it does not, the goroutine relay takes over with the
// rest of the row, the statement framed but not yet written, the
// statements not yet framed and the counters. Either way the row
// arrives whole, every statement reaches the upstream once, the observer
// sees the flagged statement (and, after a handover, every later one),
// and its notice comes before the right ReadyForQuery.
func TestFastRelayObservedMidStream(t *testing.T) {
	for _, tc := range []struct {
		name     string
		third    string // the statement for the observer
		demoted  bool
		observed int // statements the observer sees, from the third on
	}{
		{name: "kept", third: "select 3 -- observe me", observed: 1},
		{name: "demoted", third: "select 3 -- observe me " + strings.Repeat("x", 5000), demoted: true, observed: 2},
	} {
		t.Run(tc.name, func(t *testing.T) { testObservedMidStream(t, tc.third, tc.demoted, tc.observed) })
	}
}

func testObservedMidStream(t *testing.T, third string, demoted bool, observed int) {
	ctx := testCtx(t, 30*time.Second)
	ends := make(fastEnds, 4)
	row := encodeAll(t, &pgproto3.DataRow{Values: [][]byte{bytes.Repeat([]byte("r"), 100_000)}})
	const sent = 1000 // of row, before the statement for the observer
	resume := make(chan struct{})
	upstreamGot := make(chan []string, 1)
	addr := fakeBackend(t, func(be *pgproto3.Backend, conn net.Conn) {
		if err := fakeStartup(be); err != nil {
			t.Error(err)
			return
		}
		var got []string
		defer func() { upstreamGot <- got }()
		for i := range 4 {
			msg, err := be.Receive()
			if err != nil {
				t.Errorf("fake backend: %v", err)
				return
			}
			q, ok := msg.(*pgproto3.Query)
			if !ok {
				t.Errorf("fake backend got %T, want Query", msg)
				return
			}
			got = append(got, q.String)
			if i == 0 {
				conn.Write(row[:sent])
				select {
				case <-resume:
				case <-ctx.Done():
					return
				}
				conn.Write(row[sent:])
			}
			be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")})
			be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
			if err := be.Flush(); err != nil {
				t.Error(err)
				return
			}
		}
	})
	obs := &markObserver{}
	opts := fakeOpts(addr)
	opts.Observer = obs
	k := ends.knobs()
	k.bufferSize = 4096 // the row takes many reads
	p := startProxy(t, opts, k)
	c := rawFakeClient(t, ctx, p)

	if _, err := c.Write(encodeAll(t, &pgproto3.Query{String: "select big"})); err != nil {
		t.Fatal(err)
	}
	first := make([]byte, sent)
	if _, err := io.ReadFull(c, first); err != nil {
		t.Fatal(err)
	}
	// In one write, so one read: the first is framed, the second stops
	// the fast relay, the third waits in its buffer.
	if _, err := c.Write(encodeAll(t, &pgproto3.Query{String: "select 2"},
		&pgproto3.Query{String: third}, &pgproto3.Query{String: "select 4"})); err != nil {
		t.Fatal(err)
	}
	if demoted && !ends.next(t, ctx) {
		t.Fatal("connection ended instead of moving to the goroutine relay")
	}
	close(resume)

	fe := pgproto3.NewFrontend(io.MultiReader(bytes.NewReader(first), c), io.Discard)
	var got []string
	for rfq := 0; rfq < 4; {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			if len(m.Values) != 1 || !bytes.Equal(m.Values[0], bytes.Repeat([]byte("r"), 100_000)) {
				t.Fatal("the row was damaged by the handover")
			}
			got = append(got, "row")
		case *pgproto3.CommandComplete:
			got = append(got, "complete")
		case *pgproto3.NoticeResponse:
			got = append(got, "notice: "+m.Message)
		case *pgproto3.ReadyForQuery:
			got = append(got, "ready")
			rfq++
		default:
			t.Fatalf("unexpected %T", msg)
		}
	}
	want := []string{"row", "complete", "ready", "complete", "ready",
		"complete", "notice: seen " + third, "ready", "complete", "ready"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("client got\n%q\nwant\n%q", got, want)
	}
	if s := obs.statements(); fmt.Sprint(s) != fmt.Sprint([]string{third, "select 4"}[:observed]) {
		t.Fatalf("observer saw %q; want %d statements from the third on", s, observed)
	}
	c.Close()
	if !demoted && ends.next(t, ctx) {
		t.Fatal("connection moved to the goroutine relay")
	}
	select {
	case up := <-upstreamGot:
		if fmt.Sprint(up) != fmt.Sprint([]string{"select big", "select 2", third, "select 4"}) {
			t.Fatalf("upstream got %q", up)
		}
	case <-ctx.Done():
		t.Fatal("fake backend did not finish")
	}
}

// pump writes total bytes of CopyData frames to w. The first write that
// makes no progress for a second closes blocked: the path to the reader
// is full, so nothing on it holds more than its buffers. It returns how
// much was written by then (total if it never blocked).
func pump(w net.Conn, total int, blocked chan struct{}) (blockedAt int, err error) {
	frame, err := (&pgproto3.CopyData{Data: bytes.Repeat([]byte("c"), 64<<10-5)}).Encode(nil)
	if err != nil {
		return 0, err
	}
	chunk := bytes.Repeat(frame, 16)
	blockedAt = total
	for written := 0; written < total; {
		if blocked != nil {
			w.SetWriteDeadline(time.Now().Add(time.Second))
		}
		off := written % len(chunk)
		n, err := w.Write(chunk[off:min(len(chunk), off+total-written)])
		written += n
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			blockedAt = written
			close(blocked)
			blocked = nil
			w.SetWriteDeadline(time.Time{})
			continue
		}
		if err != nil {
			return blockedAt, err
		}
	}
	if blocked != nil {
		close(blocked)
	}
	return blockedAt, nil
}

// drain reads CopyData frames until want bytes have arrived.
func drain(r io.Reader, want int) error {
	fe := pgproto3.NewFrontend(r, io.Discard)
	for got := 0; got < want; {
		msg, err := fe.Receive()
		if err != nil {
			return fmt.Errorf("after %d bytes: %w", got, err)
		}
		d, ok := msg.(*pgproto3.CopyData)
		if !ok {
			return fmt.Errorf("after %d bytes: got %T", got, msg)
		}
		got += 5 + len(d.Data)
	}
	return nil
}

// TestFastRelayBackpressure: a reader that does not read stops the fast
// relay from reading its writer, in both directions, and the stream then
// arrives whole.
func TestFastRelayBackpressure(t *testing.T) {
	const total = 64 << 20 // far beyond what socket buffers hold
	for _, toClient := range []bool{true, false} {
		name := map[bool]string{true: "upstream to client", false: "client to upstream"}[toClient]
		t.Run(name, func(t *testing.T) {
			ctx := testCtx(t, 60*time.Second)
			ends := make(fastEnds, 4)
			blocked := make(chan struct{})
			done := make(chan error, 1)
			var blockedAt int
			addr := fakeBackend(t, func(be *pgproto3.Backend, conn net.Conn) {
				if err := fakeStartup(be); err != nil {
					done <- err
					return
				}
				var hdr [5]byte
				if _, err := io.ReadFull(conn, hdr[:]); err != nil { // the client is relayed now
					done <- err
					return
				}
				var err error
				if toClient {
					blockedAt, err = pump(conn, total, blocked)
				} else {
					select {
					case <-blocked:
					case <-ctx.Done():
					}
					err = drain(conn, total)
				}
				done <- err
			})
			p := startProxy(t, fakeOpts(addr), ends.knobs())
			c := rawFakeClient(t, ctx, p)
			if _, err := c.Write(encodeAll(t, &pgproto3.Flush{})); err != nil {
				t.Fatal(err)
			}
			var err error
			if toClient {
				select {
				case <-blocked:
				case <-ctx.Done():
					t.Fatal("the upstream never wrote")
				}
				err = drain(c, total)
			} else {
				blockedAt, err = pump(c, total, blocked)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if blockedAt == total {
				t.Fatalf("the writer never blocked: %d bytes went in while the reader read nothing", total)
			}
			t.Logf("the writer blocked after %d MiB", blockedAt>>20)
			c.Close()
			if ends.next(t, ctx) {
				t.Fatal("connection was demoted")
			}
		})
	}
}
