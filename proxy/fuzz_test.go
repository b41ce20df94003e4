package proxy

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pgequiv/pgequiv/protocol"
)

// refuseEvery refuses statements whose SQL starts with 'X' and notes those
// starting with 'N', to drive the injection paths under fuzzing.
type refuseEvery struct{}

func (refuseEvery) ObserveQuery(_ context.Context, ev *QueryEvent) Action {
	switch {
	case bytes.HasPrefix(ev.SQL, []byte("X")):
		return Action{Refuse: &pgproto3.ErrorResponse{Message: "no"}}
	case bytes.HasPrefix(ev.SQL, []byte("N")):
		return Action{Notice: &pgproto3.NoticeResponse{Message: "noted"}}
	}
	return Action{}
}

// fuzzConn is a conn reading client and upstream bytes from in-memory
// streams (ending in EOF) and writing to buffers.
func fuzzConn(clientIn, upstreamIn []byte) (*conn, *bytes.Buffer, *bytes.Buffer) {
	ctx, cancel := context.WithCancel(context.Background())
	var toUp, toClient bytes.Buffer
	c := &conn{
		s: &Server{}, ctx: ctx, cancel: cancel,
		opts: &Options{Observer: refuseEvery{},
			Logger: slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelDebug}))},
		errCh: make(chan error, 1),
	}
	c.clientDecode = newClientDecode(&c.session)
	c.relayBufs = &relayBufs{}
	c.upW = bufio.NewWriterSize(sideWriter{&toUp, CodeBackendWrite}, 64)
	c.clW = bufio.NewWriterSize(sideWriter{&toClient, CodeClientWrite}, 64)
	c.clR = protocol.NewReader(flushingReader{bytes.NewReader(clientIn), c.upW}, 32, 4096)
	c.upR = protocol.NewReader(flushingReader{bytes.NewReader(upstreamIn), c.clW}, 32, 0)
	return c, &toUp, &toClient
}

// FuzzRelay feeds arbitrary client and upstream byte streams through both
// relay directions (with a debug logger, so Bind/Execute/Close are decoded,
// and an observer that refuses and notes): nothing may panic, every error
// must be classified, and upstream bytes without ReadyForQuery must reach
// the client unchanged.
func FuzzRelay(f *testing.F) {
	enc := func(msgs ...interface{ Encode([]byte) ([]byte, error) }) []byte {
		var b []byte
		for _, m := range msgs {
			b, _ = m.Encode(b)
		}
		return b
	}
	f.Add(enc(&pgproto3.Query{String: "Xrefused"}, &pgproto3.Parse{Query: "Nnoted"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{}),
		enc(&pgproto3.ReadyForQuery{TxStatus: 'I'}, &pgproto3.ParseComplete{}, &pgproto3.ReadyForQuery{TxStatus: 'I'}))
	f.Add(enc(&pgproto3.Parse{Query: "Xno"}, &pgproto3.Query{String: "dropped"}, &pgproto3.Close{ObjectType: 'S'}, &pgproto3.Sync{}),
		enc(&pgproto3.ErrorResponse{Code: "42601"}, &pgproto3.ReadyForQuery{TxStatus: 'E'}))
	f.Add([]byte("Q\x00\x00\x00\x03"), []byte("D\x7f\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, clientIn, upstreamIn []byte) {
		c, _, toClient := fuzzConn(clientIn, upstreamIn)
		defer c.cancel()
		for {
			err := c.clientStep()
			if err == nil {
				continue
			}
			if CodeOf(err) == CodeNone {
				t.Fatalf("unclassified client-side error %T: %v", err, err)
			}
			break
		}
		for {
			err := c.upstreamStep()
			if err == nil {
				continue
			}
			if CodeOf(err) == CodeNone {
				t.Fatalf("unclassified upstream-side error %T: %v", err, err)
			}
			break
		}
		if !bytes.Contains(upstreamIn, []byte{protocol.TypeReadyForQuery}) {
			// No injection point: the client's bytes are a prefix of the
			// upstream's (a prefix because the stream may end mid-frame).
			if !bytes.HasPrefix(upstreamIn, toClient.Bytes()) {
				t.Fatalf("client got %q from upstream %q", toClient.Bytes(), upstreamIn)
			}
		}
	})
}
