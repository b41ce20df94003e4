package proxy

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"
)

// TestDialTCPAddressForms: the upstream is reached by IP address (dialled
// without the resolver) and by host name alike; a refused or cancelled
// dial returns a nil net.Conn, not a nil *TCPConn inside one.
func TestDialTCPAddressForms(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ctx := testCtx(t, 30*time.Second)
	for _, addr := range []string{"127.0.0.1:" + port, "localhost:" + port} {
		c, err := dialTCP(ctx, addr)
		if err != nil {
			t.Fatalf("dial %s: %v", addr, err)
		}
		if got := c.RemoteAddr().String(); got != "127.0.0.1:"+port {
			t.Errorf("dial %s: connected to %s", addr, got)
		}
		c.Close()
	}

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := closed.Addr().String()
	closed.Close()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		addr string
	}{
		{"refused", ctx, refused},
		{"cancelled", cancelled, "127.0.0.1:" + port},
	} {
		c, err := dialTCP(tc.ctx, tc.addr)
		if err == nil || c != nil {
			t.Errorf("%s: dialTCP = %v, %v; want nil net.Conn and an error", tc.name, c, err)
		}
	}
}
