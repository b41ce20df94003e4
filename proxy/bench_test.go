package proxy

import (
	"context"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/protocol"
)

// BenchmarkRoundTrip compares a one-row extended-protocol query directly
// and through the proxy:
//
//	go test -run '^$' -bench RoundTrip ./proxy
func BenchmarkRoundTrip(b *testing.B) {
	p := startProxy(b, upstreamOpts())
	for _, target := range []struct {
		name    string
		connStr string
	}{
		{"direct", pg.ConnString(pgtest.SuperUser, "")},
		{"proxy", p.connString(pgtest.SuperUser, "")},
	} {
		b.Run(target.name, func(b *testing.B) {
			ctx := context.Background()
			conn, err := pgconn.Connect(ctx, target.connStr)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close(ctx)
			args := [][]byte{[]byte("1")}
			for b.Loop() {
				if _, err := conn.ExecParams(ctx, "SELECT $1::int", args, nil, nil, nil).Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLargeResult compares streaming a ~10 MB result directly and
// through the proxy (bytes/s in the output):
//
//	go test -run '^$' -bench LargeResult ./proxy
func BenchmarkLargeResult(b *testing.B) {
	p := startProxy(b, upstreamOpts())
	query := (&protocol.Query{SQL: []byte("SELECT repeat('x', 1000) FROM generate_series(1, 10000)")}).Encode(nil)
	for _, target := range []struct {
		name string
		port int
	}{{"direct", pg.Port}, {"proxy", p.Port}} {
		b.Run(target.name, func(b *testing.B) {
			ctx := context.Background()
			tp := &testProxy{Host: "127.0.0.1", Port: target.port}
			c, _ := rawStartup(b, ctx, tp)
			r := protocol.NewReader(c, 64*1024, 0)
			var total int
			for b.Loop() {
				if _, err := c.Write(query); err != nil {
					b.Fatal(err)
				}
				total = 0
				for {
					typ, n, err := r.PeekHeader()
					if err != nil {
						b.Fatal(err)
					}
					if _, err := r.Forward(io.Discard); err != nil {
						b.Fatal(err)
					}
					total += n
					if typ == protocol.TypeReadyForQuery {
						break
					}
				}
			}
			b.SetBytes(int64(total))
		})
	}
}
