package proxy

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"

	"github.com/pgequiv/pgequiv/proxy/connset"
)

// Server relays client connections to one upstream PostgreSQL server.
type Server struct {
	opts   atomic.Pointer[Options]
	knobs  testingKnobs
	nextID atomic.Uint64

	cancels cancelRegistry

	conns *connset.Set[*conn] // the server core: accept loop, limits, drain

	fast fastLoops // the fast relay's event loops
	// Pools of *relayBufs: full-size ones, and authentication's.
	bufs, authBufs sync.Pool

	relay relayCounters // metrics.go

	adminThrottle adminThrottle // admin_auth.go
}

// New returns a Server with opts (see Options for defaults).
func New(opts Options) (*Server, error) {
	s := &Server{conns: connset.New(func(c *conn) {
		c.abort(&Error{Code: CodeShutdown, Err: errors.New("server shutting down")})
	})}
	if err := s.Reload(opts); err != nil {
		return nil, err
	}
	return s, nil
}

// Reload validates opts and, if valid, uses them for connections accepted
// from now on. Live connections keep the options they started with.
func (s *Server) Reload(opts Options) error {
	o, err := opts.withDefaults()
	if err != nil {
		return err
	}
	s.opts.Store(&o)
	return nil
}

// Options returns the options new connections get (defaults applied).
func (s *Server) Options() Options { return *s.opts.Load() }

// Serve accepts connections on ln until Shutdown or Close, and then returns
// ErrServerClosed. It closes ln when it returns.
func (s *Server) Serve(ln net.Listener) error {
	return s.conns.Serve(ln, connset.Handler[*conn]{
		New:    func(raw net.Conn) *conn { return newConn(s, raw) },
		Limit:  func(c *conn) int { return c.opts.MaxClientConn },
		Refuse: func(c *conn) { c.refused = true },
		Serve:  s.serveConn,
		Logger: func() *slog.Logger { return s.Options().Logger },
		Closed: ErrServerClosed,
	})
}

func (s *Server) serveConn(c *conn) {
	if err := c.run(); !errors.Is(err, errParked) {
		s.connDone(c, err)
	}
}

// connDone accounts for the end of c, finished with err.
func (s *Server) connDone(c *conn, err error) {
	s.conns.Done(c)
	if f := s.knobs.onConnEnd; f != nil {
		f(c.id, err)
	}
}

// ActiveConns returns the number of connections being served, not
// counting those being refused for being over MaxClientConn.
func (s *Server) ActiveConns() int { return s.conns.Active() }

// Shutdown stops accepting, waits for connections to end on their own until
// ctx is done, then ends the rest with an admin_shutdown error. It returns
// ctx.Err() if connections had to be ended.
func (s *Server) Shutdown(ctx context.Context) error { return s.conns.Shutdown(ctx) }

// Close stops accepting and ends all connections at once.
func (s *Server) Close() error {
	s.conns.Close()
	return nil
}
