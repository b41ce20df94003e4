package protocol

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pgequiv/pgequiv/internal/pgtest"
)

func encodeStartup(t *testing.T, m pgproto3.FrontendMessage) []byte {
	t.Helper()
	b, err := m.Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeStartup(t *testing.T) {
	sm := encodeStartup(t, &pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "u", "database": "d"}})
	msg, err := DecodeStartup(sm)
	if err != nil {
		t.Fatal(err)
	}
	if got := msg.(*pgproto3.StartupMessage).Parameters["database"]; got != "d" {
		t.Fatalf("database = %q", got)
	}
	cr := encodeStartup(t, &pgproto3.CancelRequest{ProcessID: 7, SecretKey: []byte{1, 2, 3, 4}})
	msg, err = DecodeStartup(cr)
	if c, ok := msg.(*pgproto3.CancelRequest); err != nil || !ok || c.ProcessID != 7 {
		t.Fatalf("cancel request decoded %#v, %v", msg, err)
	}
	if _, err := DecodeStartup(encodeStartup(t, &pgproto3.SSLRequest{})); err != nil {
		t.Fatal(err)
	}
	// Protocol 2.0 is refused as unsupported, not as malformed.
	v2 := []byte{0, 0, 0, 8, 0, 2, 0, 0}
	if _, err := DecodeStartup(v2); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("v2 err = %v", err)
	}
	noUser := encodeStartup(t, &pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"database": "d"}})
	if _, err := DecodeStartup(noUser); !IsProtocolViolation(err) {
		t.Fatalf("no user err = %v", err)
	}
	// An oversized length is refused before reading the body.
	if _, err := ReadStartup(&infiniteReader{hdr: []byte{0, 1, 0, 0}}); !IsProtocolViolation(err) {
		t.Fatalf("huge startup err = %v", err)
	}
}

type infiniteReader struct{ hdr []byte }

func (r *infiniteReader) Read(p []byte) (int, error) {
	if len(r.hdr) > 0 {
		n := copy(p, r.hdr)
		r.hdr = r.hdr[n:]
		return n, nil
	}
	return len(p), nil
}

func TestAcceptNegotiation(t *testing.T) {
	serverTLS, err := pgtest.ServerTLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	for _, withTLS := range []bool{false, true} {
		server, client := net.Pipe()
		cfg := AcceptConfig{}
		if withTLS {
			cfg.TLS = serverTLS
		}
		type result struct {
			conn net.Conn
			msg  pgproto3.FrontendMessage
			err  error
		}
		done := make(chan result, 1)
		go func() {
			c, m, err := Accept(ctx, server, cfg)
			done <- result{c, m, err}
		}()

		// GSSENCRequest is always refused.
		if _, err := client.Write(encodeStartup(t, &pgproto3.GSSEncRequest{})); err != nil {
			t.Fatal(err)
		}
		var b [1]byte
		if _, err := io.ReadFull(client, b[:]); err != nil || b[0] != 'N' {
			t.Fatalf("GSSENC answer %q, %v", b[0], err)
		}
		conn, err := RequestTLS(ctx, client, &tls.Config{InsecureSkipVerify: true}, withTLS)
		if err != nil {
			t.Fatalf("withTLS=%v: RequestTLS: %v", withTLS, err)
		}
		if _, isTLS := conn.(*tls.Conn); isTLS != withTLS {
			t.Fatalf("withTLS=%v: client got TLS=%v", withTLS, isTLS)
		}
		if _, err := conn.Write(encodeStartup(t, &pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
			Parameters: map[string]string{"user": "alice"}})); err != nil {
			t.Fatal(err)
		}
		res := <-done
		if res.err != nil {
			t.Fatal(res.err)
		}
		if sm, ok := res.msg.(*pgproto3.StartupMessage); !ok || sm.Parameters["user"] != "alice" {
			t.Fatalf("Accept returned %#v", res.msg)
		}
		if _, isTLS := res.conn.(*tls.Conn); isTLS != withTLS {
			t.Fatalf("withTLS=%v: server conn TLS=%v", withTLS, isTLS)
		}
		// Close the pipe ends, not the TLS conns, whose close_notify would
		// block on the unread pipe.
		client.Close()
		server.Close()
	}
}
