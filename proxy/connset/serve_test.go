package connset

import (
	"errors"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

var errClosed = errors.New("closed")

// scripted is a listener whose Accepts return errs in turn, then block
// until Close.
type scripted struct {
	errs   []error
	closed chan struct{}
}

func (l *scripted) Accept() (net.Conn, error) {
	if len(l.errs) > 0 {
		err := l.errs[0]
		l.errs = l.errs[1:]
		return nil, err
	}
	<-l.closed
	return nil, net.ErrClosed
}

func (l *scripted) Close() error {
	select {
	case <-l.closed:
	default:
		close(l.closed)
	}
	return nil
}

func (l *scripted) Addr() net.Addr { return &net.TCPAddr{} }

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// TestServeAcceptErrors: errors that may pass (a timeout, EMFILE) are
// retried; any other ends Serve with it.
func TestServeAcceptErrors(t *testing.T) {
	other := errors.New("listener broken")
	for _, tc := range []struct {
		name  string
		err   error
		retry bool
	}{
		{"timeout", timeoutErr{}, true},
		{"emfile", &net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", syscall.EMFILE)}, true},
		{"other", other, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(func(net.Conn) {})
			ln := &scripted{errs: []error{tc.err}, closed: make(chan struct{})}
			served := make(chan error, 1)
			go func() {
				served <- s.Serve(ln, Handler[net.Conn]{Closed: errClosed})
			}()
			if tc.retry {
				select {
				case err := <-served:
					t.Fatalf("Serve returned %v on a retried error", err)
				case <-time.After(50 * time.Millisecond):
				}
				s.Close()
				if err := <-served; !errors.Is(err, errClosed) {
					t.Fatalf("Serve after Close = %v", err)
				}
				return
			}
			if err := <-served; !errors.Is(err, other) {
				t.Fatalf("Serve = %v, want %v", err, other)
			}
		})
	}
}

// TestServeLimits: connections over the limit are refused (marked, and
// not counted as active) up to MaxRefusing at once, and closed beyond.
func TestServeLimits(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(func(c net.Conn) { c.Close() })
	refused := make(chan net.Conn, MaxRefusing+2)
	started := make(chan net.Conn, MaxRefusing+2)
	release := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- s.Serve(ln, Handler[net.Conn]{
			New:    func(c net.Conn) net.Conn { return c },
			Limit:  func(net.Conn) int { return 1 },
			Refuse: func(c net.Conn) { refused <- c },
			Serve: func(c net.Conn) {
				started <- c
				<-release
				s.Done(c)
			},
			Closed: errClosed,
		})
	}()
	var clients []net.Conn
	for range MaxRefusing + 2 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	// One is served, MaxRefusing are refused, the last is closed unserved.
	if _, err := clients[len(clients)-1].Read(make([]byte, 1)); err == nil {
		t.Fatal("the connection beyond MaxRefusing was not closed")
	}
	for i := range 1 + MaxRefusing {
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d started, want %d", i, 1+MaxRefusing)
		}
	}
	if len(refused) != MaxRefusing || s.Active() != 1 || s.Len() != 1+MaxRefusing {
		t.Fatalf("refused %d, active %d, len %d", len(refused), s.Active(), s.Len())
	}
	if s.Admitted() != 1 || s.Refused() != MaxRefusing+1 {
		t.Fatalf("admitted %d, refused %d", s.Admitted(), s.Refused())
	}
	close(release)
	s.Close()
	if err := <-served; !errors.Is(err, errClosed) {
		t.Fatalf("Serve = %v", err)
	}
	for _, c := range clients {
		c.Close()
	}
	if s.Active() != 0 || s.Len() != 0 {
		t.Fatalf("after Close: active %d, len %d", s.Active(), s.Len())
	}
}
