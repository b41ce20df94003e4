package proxy

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pgequiv/pgequiv/protocol"
)

// loopReader replays the same bytes forever without allocating.
type loopReader struct {
	data []byte
	off  int
}

func (l *loopReader) Read(p []byte) (int, error) {
	n := copy(p, l.data[l.off:])
	l.off = (l.off + n) % len(l.data)
	return n, nil
}

func encodeAll(t testing.TB, msgs ...interface{ Encode([]byte) ([]byte, error) }) []byte {
	t.Helper()
	var b []byte
	for _, m := range msgs {
		var err error
		if b, err = m.Encode(b); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// newStepConn returns a conn wired to in-memory streams for driving
// clientStep and upstreamStep directly.
func newStepConn(clientIn, upstreamIn []byte) *conn {
	ctx, cancel := context.WithCancel(context.Background())
	c := &conn{
		s:      &Server{},
		ctx:    ctx,
		cancel: cancel,
		opts: &Options{Observer: NopObserver{},
			Logger: slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))},
		errCh: make(chan error, 1),
	}
	c.clientDecode = newClientDecode(&c.session)
	c.relayBufs = &relayBufs{}
	c.upW = bufio.NewWriterSize(sideWriter{io.Discard, CodeBackendWrite}, 8192)
	c.clW = bufio.NewWriterSize(sideWriter{io.Discard, CodeClientWrite}, 8192)
	c.clR = protocol.NewReader(flushingReader{&loopReader{data: clientIn}, c.upW}, 8192, 1<<20)
	c.upR = protocol.NewReader(flushingReader{&loopReader{data: upstreamIn}, c.clW}, 8192, 0)
	return c
}

// TestForwardingDoesNotAllocate drives both directions over a mix of
// messages, including ones the proxy decodes and one larger than the
// buffer, and asserts zero allocations per message.
func TestForwardingDoesNotAllocate(t *testing.T) {
	clientIn := encodeAll(t,
		&pgproto3.Query{String: "SELECT 1"},
		&pgproto3.Parse{Name: "s1", Query: "SELECT $1::int"},
		&pgproto3.Bind{PreparedStatement: "s1", Parameters: [][]byte{[]byte("1")}},
		&pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{},
		&pgproto3.Close{ObjectType: 'S', Name: "s1"},
		&pgproto3.Sync{},
		&pgproto3.CopyData{Data: make([]byte, 20000)},
		&pgproto3.Flush{},
	)
	upstreamIn := encodeAll(t,
		&pgproto3.ParseComplete{},
		&pgproto3.BindComplete{},
		&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("a"), DataTypeOID: 23, DataTypeSize: 4}}},
		&pgproto3.DataRow{Values: [][]byte{[]byte("1")}},
		&pgproto3.DataRow{Values: [][]byte{make([]byte, 20000)}},
		&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")},
		&pgproto3.ReadyForQuery{TxStatus: 'I'},
	)
	c := newStepConn(clientIn, upstreamIn)
	defer c.cancel()
	const perRun = 9
	allocs := testing.AllocsPerRun(500, func() {
		for range perRun {
			if err := c.clientStep(); err != nil {
				t.Fatal(err)
			}
			if err := c.upstreamStep(); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per %d forwarded messages each way, want 0", allocs, perRun)
	}
	if c.zSent == 0 || c.zRecv == 0 {
		t.Fatalf("Query/Sync and ReadyForQuery not counted: sent %d, received %d", c.zSent, c.zRecv)
	}
}

func BenchmarkForwardDataRows(b *testing.B) {
	upstreamIn := encodeAll(b, &pgproto3.DataRow{Values: [][]byte{make([]byte, 100), make([]byte, 100)}})
	c := newStepConn(encodeAll(b, &pgproto3.Sync{}), upstreamIn)
	defer c.cancel()
	b.SetBytes(int64(len(upstreamIn)))
	b.ReportAllocs()
	for b.Loop() {
		if err := c.upstreamStep(); err != nil {
			b.Fatal(err)
		}
	}
}
