package dbfree

import (
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
)

// emfileOnce is a listener whose first Accept fails with EMFILE, as the
// kernel's does while the process is out of file descriptors. It is a
// test double: the OS cannot be made to fail an accept so
// deterministically (a lowered RLIMIT_NOFILE fails every other open of
// the test process as well).
type emfileOnce struct {
	net.Listener
	failed atomic.Bool
}

func (l *emfileOnce) Accept() (net.Conn, error) {
	if !l.failed.Swap(true) {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// TestServeRetriesEMFILE: out of file descriptors for a moment, the
// server goes on serving, as the relay does (issue 38: it used to stop).
func TestServeRetriesEMFILE(t *testing.T) {
	ln := &emfileOnce{}
	s := startServerOn(t, Options{}, func(inner net.Listener) net.Listener {
		ln.Listener = inner
		return ln
	})
	ctx := testCtx(t)
	c := s.connect(t, ctx, pgx.QueryExecModeSimpleProtocol)
	if _, err := scanVerdict(c.QueryRow(ctx, "SELECT * FROM pgequiv.check($1, $2)", countStar, countOwner)); err != nil {
		t.Fatalf("after EMFILE: %v", err)
	}
	if !ln.failed.Load() {
		t.Fatal("the listener never failed")
	}
}
