package judging

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"slices"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/proxy"
)

// rawSession is a client that sends simple Queries and keeps the bytes of
// each response, up to and including its ReadyForQuery, as the proxy
// sent them.
type rawSession struct {
	nc net.Conn
}

func dialRaw(t *testing.T, e *judgeEnv, db string) *rawSession {
	t.Helper()
	nc, err := net.Dial("tcp", net.JoinHostPort(e.Host, strconv.Itoa(e.Port)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	startup, err := (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters: map[string]string{"user": pgtest.SuperUser, "database": db}}).Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &rawSession{nc: nc}
	if _, err := nc.Write(startup); err != nil {
		t.Fatal(err)
	}
	if _, err := s.response(); err != nil {
		t.Fatalf("startup: %v", err)
	}
	return s
}

// query sends sql and returns the response's bytes.
func (s *rawSession) query(sql string) ([]byte, error) {
	q, err := (&pgproto3.Query{String: sql}).Encode(nil)
	if err != nil {
		return nil, err
	}
	if _, err := s.nc.Write(q); err != nil {
		return nil, err
	}
	return s.response()
}

// response reads frames up to and including a ReadyForQuery.
func (s *rawSession) response() ([]byte, error) {
	var out []byte
	for {
		var hdr [5]byte
		if _, err := io.ReadFull(s.nc, hdr[:]); err != nil {
			return out, err
		}
		frame := make([]byte, 1+binary.BigEndian.Uint32(hdr[1:]))
		copy(frame, hdr[:])
		if _, err := io.ReadFull(s.nc, frame[5:]); err != nil {
			return out, err
		}
		out = append(out, frame...)
		if hdr[0] == 'Z' {
			return out, nil
		}
	}
}

// demotions is how many connections the fast relay handed to the
// goroutine relay (pgequiv.relay.connections, path demoted).
func demotions(t *testing.T, r *sdkmetric.ManualReader) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "pgequiv.relay.connections" {
				continue
			}
			sum, _ := m.Data.(metricdata.Sum[int64])
			for _, dp := range sum.DataPoints {
				if v, ok := dp.Attributes.Value("path"); ok && v.AsString() == "demoted" {
					return dp.Value
				}
			}
		}
	}
	return 0
}

// TestQuickSameAsGoroutineRelay: the fast relay's answers to tagged
// statements are the goroutine relay's, byte for byte: the same NOTICEs
// in the same places, the same refusals, nothing of a refused statement
// run; whether ObserveQuick answers on the event loop (a verdict it
// knows) or ObserveQuery on a goroutine while the loop waits. Each
// statement is sent twice on one connection (the first learns its shape
// and proof), and those with known verdicts again on a second
// connection. The fast relay keeps both connections.
func TestQuickSameAsGoroutineRelay(t *testing.T) {
	const ref = "SELECT d.name FROM dogs d WHERE d.age > $1"
	stmts := []string{
		withComment("SELECT name FROM dogs WHERE age > 5", ref),
		withComment("SELECT name FROM dogs WHERE age > 2", ref),
		"SELECT 1",
		withComment("SELECT name FROM dogs WHERE age >= 5", ref),     // not equivalent: never a kept proof
		withComment("SELECT name, age FROM dogs WHERE age > 5", ref), // not equivalent
		withComment("SELECT nosuch FROM dogs WHERE age > 5", ref),    // the server's error
		"SELECT name FROM dogs WHERE age > 5 /*pgequiv_ref='unterminated*/",
		"BEGIN",
		withComment("SELECT name FROM dogs WHERE age > 3", ref),
		"SELECT 1/0",
		withComment("SELECT name FROM dogs WHERE age > 4", ref), // in a failed transaction
		"ROLLBACK",
		withComment("SELECT name FROM dogs WHERE age > 5", ref) + "; SELECT 2",
		withComment("SELECT name FROM dogs WHERE age > 6", ref),
		// Session references: answered by the proxy, and followed
		// through transactions (ReadyForQuery).
		"SET pgequiv.reference = 'SELECT d.name FROM dogs d WHERE d.age > 5'",
		"SHOW pgequiv.reference",
		"SELECT name FROM dogs WHERE age > 5",
		"BEGIN",
		"SET LOCAL pgequiv.reference = 'SELECT d.name FROM dogs d WHERE d.age >= 5'",
		"SELECT name FROM dogs WHERE age > 5",
		"ROLLBACK",
		"SELECT name FROM dogs WHERE age > 5",
		"RESET pgequiv.reference",
		"SELECT name FROM dogs WHERE age > 5",
	}
	// cached is statements whose verdicts are known once seen: kept
	// proofs, and a tag that does not read (refused in enforce mode).
	cached := []string{stmts[0], stmts[6], stmts[1], stmts[2], stmts[6], stmts[13]}
	for _, mode := range []JudgeMode{ModeAnnotate, ModeEnforce} {
		t.Run(string(mode), func(t *testing.T) {
			run := func(fast bool) (transcript [][]byte, demoted int64, records []string) {
				set := annotateSettings(t)
				set.Mode, set.EnforceUnknown = mode, true
				// Verdicts from structure alone: a counterexample search
				// bounded in time may end differently from run to run.
				set.Options.Refute.Off = true
				reader := sdkmetric.NewManualReader()
				e := startJudgeProxy(t, set, JudgingOptions{}, func(o *proxy.Options) { o.DisableFastRelay = !fast })
				if err := e.Instrument(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))); err != nil {
					t.Fatal(err)
				}
				before := demotions(t, reader)
				s := dialRaw(t, e, kennelDB)
				for range 2 {
					for _, sql := range stmts {
						b, err := s.query(sql)
						if err != nil {
							t.Fatalf("%q: %v", sql, err)
						}
						transcript = append(transcript, b)
					}
				}
				s2 := dialRaw(t, e, kennelDB)
				for _, sql := range cached {
					b, err := s2.query(sql)
					if err != nil {
						t.Fatalf("%q: %v", sql, err)
					}
					transcript = append(transcript, b)
				}
				// The verdicts recorded (the fast relay's on its loop,
				// QuickAction.After): the same ones, in whatever order.
				e.j.Wait()
				for _, r := range e.j.RecentVerdicts() {
					records = append(records, r.Label+" "+r.Action+" "+r.Query)
				}
				slices.Sort(records)
				return transcript, demotions(t, reader) - before, records
			}
			slow, _, slowRecords := run(false)
			fast, demoted, fastRecords := run(true)
			if len(fastRecords) == 0 || !slices.Equal(slowRecords, fastRecords) {
				t.Errorf("verdicts recorded:\ngoroutine relay %q\nfast relay      %q", slowRecords, fastRecords)
			}
			for i := range slow {
				if string(slow[i]) != string(fast[i]) {
					t.Errorf("response %d differs:\ngoroutine relay %q\nfast relay      %q", i, slow[i], fast[i])
				}
			}
			if demoted != 0 {
				t.Errorf("%d connections demoted for simple Queries", demoted)
			}
		})
	}
}
