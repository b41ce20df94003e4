package proxy

import (
	"bytes"
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// fakeBackend serves one scripted connection: it reads the startup message
// and hands the rest to script. It is for upstream behaviour a real
// PostgreSQL will not produce on demand.
func fakeBackend(t *testing.T, script func(be *pgproto3.Backend, conn net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		ln.Close()
		<-done
	})
	go func() {
		defer close(done)
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		be := pgproto3.NewBackend(conn, conn)
		if _, err := be.ReceiveStartupMessage(); err != nil {
			t.Errorf("fake backend: startup: %v", err)
			return
		}
		script(be, conn)
	}()
	return ln.Addr().String()
}

func fakeOpts(addr string) Options {
	o := upstreamOpts()
	o.Upstream.Address = addr
	return o
}

// rawClient connects to the proxy and sends a startup message.
func rawClient(t *testing.T, ctx context.Context, p *testProxy, version uint32) *pgproto3.Frontend {
	t.Helper()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(p.Host, itoa(p.Port)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(30 * time.Second))
	fe := pgproto3.NewFrontend(c, c)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: version, Parameters: map[string]string{"user": "u", "database": "d"}})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	return fe
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestFakeBackendUnsupportedAuth(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  pgproto3.BackendMessage
	}{
		{"GSS", &pgproto3.AuthenticationGSS{}},
		{"SASL with channel binding only", &pgproto3.AuthenticationSASL{AuthMechanisms: []string{"SCRAM-SHA-256-PLUS"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t, 30*time.Second)
			addr := fakeBackend(t, func(be *pgproto3.Backend, conn net.Conn) {
				be.Send(tc.req)
				be.Flush()
				var b [1]byte
				conn.Read(b[:]) // until the proxy hangs up
			})
			p := startProxy(t, fakeOpts(addr))
			fe := rawClient(t, ctx, p, pgproto3.ProtocolVersion30)
			msg, err := fe.Receive()
			if e, ok := msg.(*pgproto3.ErrorResponse); err != nil || !ok || e.Code != pgCodeProtocolViolation {
				t.Fatalf("got %#v, %v; want protocol_violation", msg, err)
			}
			if err := p.waitConnEnd(t, ctx); CodeOf(err) != CodeUnsupportedAuth {
				t.Fatalf("connection end %v, want unsupported_auth", err)
			}
		})
	}
}

func TestFakeBackendMalformedFrame(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	addr := fakeBackend(t, func(be *pgproto3.Backend, conn net.Conn) {
		conn.Write([]byte{'R', 0, 0, 0, 2}) // length below 4
		var b [1]byte
		conn.Read(b[:])
	})
	p := startProxy(t, fakeOpts(addr))
	fe := rawClient(t, ctx, p, pgproto3.ProtocolVersion30)
	if msg, err := fe.Receive(); err == nil {
		t.Fatalf("client got %#v from a broken upstream", msg)
	}
	if err := p.waitConnEnd(t, ctx); CodeOf(err) != CodeBackendProtocol {
		t.Fatalf("connection end %v, want backend_protocol", err)
	}
}

// TestFakeBackendLongCancelKey: a protocol 3.2 upstream sends a 32-byte
// secret; the client's proxy key has the same length, and cancelling with
// it reaches the upstream with the upstream's own key.
func TestFakeBackendLongCancelKey(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	upSecret := bytes.Repeat([]byte{0xab}, 32)
	cancelled := make(chan *pgproto3.CancelRequest, 1)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				be := pgproto3.NewBackend(conn, conn)
				msg, err := be.ReceiveStartupMessage()
				if err != nil {
					return
				}
				if cr, ok := msg.(*pgproto3.CancelRequest); ok {
					cancelled <- cr
					return
				}
				be.Send(&pgproto3.AuthenticationOk{})
				be.Send(&pgproto3.BackendKeyData{ProcessID: 4242, SecretKey: upSecret})
				be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
				be.Flush()
				var b [1]byte
				conn.Read(b[:])
			}()
		}
	}()
	p := startProxy(t, fakeOpts(ln.Addr().String()))
	fe := rawClient(t, ctx, p, pgproto3.ProtocolVersion32)
	var key pgproto3.BackendKeyData
	for {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if k, ok := msg.(*pgproto3.BackendKeyData); ok {
			key = pgproto3.BackendKeyData{ProcessID: k.ProcessID, SecretKey: append([]byte(nil), k.SecretKey...)}
		}
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			break
		}
	}
	if len(key.SecretKey) != 32 || bytes.Equal(key.SecretKey, upSecret) || key.ProcessID == 4242 {
		t.Fatalf("client key %d/%x; want the proxy's own 32-byte key", key.ProcessID, key.SecretKey)
	}
	if err := sendCancel(ctx, p, key.ProcessID, key.SecretKey); err != nil {
		t.Fatal(err)
	}
	select {
	case cr := <-cancelled:
		if cr.ProcessID != 4242 || !bytes.Equal(cr.SecretKey, upSecret) {
			t.Fatalf("upstream got cancel %d/%x", cr.ProcessID, cr.SecretKey)
		}
	case <-ctx.Done():
		t.Fatal("cancel never reached the upstream")
	}
}
