package dbfree

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync/atomic"

	"github.com/pgequiv/pgequiv/proxy/connset"
	"github.com/pgequiv/pgequiv/proxy/judgepool"
	"github.com/pgequiv/pgequiv/proxy/scram"
)

// ErrServerClosed is returned by Serve after Shutdown or Close.
var ErrServerClosed = errors.New("dbfree: server closed")

// Server answers PostgreSQL clients without a database behind it.
type Server struct {
	cur    atomic.Pointer[settings]
	judger judgepool.Backend
	nextID atomic.Uint32

	conns *connset.Set[*conn] // the server core: accept loop, limits, drain
}

// settings are Options with what is derived from them.
type settings struct {
	opts   Options
	secret *scram.Secret // nil: trust
}

// New returns a Server with opts (see Options for defaults). It judges
// with opts.Judger, or in-process when that is nil; later Reloads keep it.
func New(opts Options) (*Server, error) {
	j := opts.Judger
	if j == nil {
		local, err := judgepool.NewLocal(judgepool.LocalOptions{Logger: opts.Logger})
		if err != nil {
			return nil, err
		}
		j = local
	}
	s := &Server{judger: j, conns: connset.New(func(c *conn) { c.abort() })}
	if err := s.Reload(opts); err != nil {
		return nil, err
	}
	return s, nil
}

// Reload validates opts and, if valid, uses them for connections accepted
// from now on. The reference cache is kept: its keys include the schema.
func (s *Server) Reload(opts Options) error {
	o, err := opts.withDefaults()
	if err != nil {
		return err
	}
	st := &settings{opts: o}
	if o.Password != "" {
		if st.secret, err = scram.NewSecret(o.Password); err != nil {
			return err
		}
	}
	s.cur.Store(st)
	return nil
}

// Judger returns the server's judge, whose cache statistics show how often
// references were reused.
func (s *Server) Judger() judgepool.Backend { return s.judger }

// JudgePanics returns how many judgements panicked in the judge pool (its
// guard is the only one); each was answered with an error and the server
// went on.
func (s *Server) JudgePanics() uint64 { return s.judger.Supervision().Panics }

// Serve accepts connections on ln until Shutdown or Close, then returns
// ErrServerClosed. It closes ln when it returns.
func (s *Server) Serve(ln net.Listener) error {
	return s.conns.Serve(ln, connset.Handler[*conn]{
		New:    func(raw net.Conn) *conn { return newConn(s, raw) },
		Limit:  func(c *conn) int { return c.opts.MaxClientConn },
		Refuse: func(c *conn) { c.refused = true },
		Serve: func(c *conn) {
			defer s.conns.Done(c)
			c.run()
		},
		Logger: func() *slog.Logger { return s.cur.Load().opts.Logger },
		Closed: ErrServerClosed,
	})
}

// ActiveConns returns the number of connections being served, not
// counting those being refused for being over MaxClientConn.
func (s *Server) ActiveConns() int { return s.conns.Active() }

// Shutdown stops accepting, waits for connections to end until ctx is
// done, then ends the rest with an admin_shutdown error and returns
// ctx.Err().
func (s *Server) Shutdown(ctx context.Context) error { return s.conns.Shutdown(ctx) }

// Close stops accepting and ends all connections at once.
func (s *Server) Close() error {
	s.conns.Close()
	return nil
}
