package proxy

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"io"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// cancelTarget maps one proxy BackendKeyData to the upstream backend it
// stands for.
type cancelTarget struct {
	secret []byte // the proxy's secret given to the client
	// upstream is the connection's Options.Upstream, shared (read only):
	// the registry holds a key for every live connection.
	upstream *Upstream
	upPID    uint32
	upSecret []byte
}

// cancelRegistry holds the keys of all live connections.
type cancelRegistry struct {
	mu sync.Mutex
	m  map[uint32]*cancelTarget
}

// register stores t under a fresh random process ID and secret (as long as
// the upstream's, so protocol 3.2 clients see a key of the length they
// expect) and returns the ID.
func (r *cancelRegistry) register(t *cancelTarget) uint32 {
	n := max(len(t.upSecret), 4)
	t.secret = make([]byte, n)
	_, _ = rand.Read(t.secret) // crypto/rand.Read never fails
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = make(map[uint32]*cancelTarget)
	}
	var b [4]byte
	for {
		_, _ = rand.Read(b[:])
		pid := binary.BigEndian.Uint32(b[:]) & 0x7fffffff // positive like real PIDs
		if _, taken := r.m[pid]; pid != 0 && !taken {
			r.m[pid] = t
			return pid
		}
	}
}

func (r *cancelRegistry) unregister(pid uint32) {
	r.mu.Lock()
	delete(r.m, pid)
	r.mu.Unlock()
}

func (r *cancelRegistry) lookup(pid uint32, secret []byte) (*cancelTarget, bool) {
	r.mu.Lock()
	t, ok := r.m[pid]
	r.mu.Unlock()
	if !ok || subtle.ConstantTimeCompare(t.secret, secret) != 1 {
		return nil, false
	}
	return t, true
}

// forwardCancel sends the upstream CancelRequest matching req, if req names
// a live connection with the right secret. Like PostgreSQL it reports
// nothing to the client either way; the error is for logging.
func (s *Server) forwardCancel(ctx context.Context, req *pgproto3.CancelRequest) (found bool, err error) {
	t, ok := s.cancels.lookup(req.ProcessID, req.SecretKey)
	if !ok {
		return false, nil
	}
	conn, err := dialUpstream(ctx, *t.upstream)
	if err != nil {
		return true, err
	}
	defer conn.Close()
	msg, err := (&pgproto3.CancelRequest{ProcessID: t.upPID, SecretKey: t.upSecret}).Encode(nil)
	if err != nil {
		return true, &Error{Code: CodeBackendProtocol, Err: err}
	}
	_ = conn.SetDeadline(time.Now().Add(t.upstream.ConnectTimeout))
	if _, err := conn.Write(msg); err != nil {
		return true, &Error{Code: CodeBackendWrite, Err: err}
	}
	// The server closes the connection once it has handled the request;
	// waiting for that keeps "cancel returned" meaning "cancel delivered".
	_, _ = io.Copy(io.Discard, conn)
	return true, nil
}
