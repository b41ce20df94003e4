package proxy

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pgequiv/pgequiv/proxy/connset"
)

// Server relays client connections to one upstream PostgreSQL server.
type Server struct {
	opts   atomic.Pointer[Options]
	knobs  testingKnobs
	nextID atomic.Uint64

	cancels cancelRegistry

	conns *connset.Set[*conn]
	// refusing counts the connections in conns that are over
	// MaxClientConn and only being told so.
	refusing atomic.Int32

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
	if !s.conns.AddListener(ln) {
		return ErrServerClosed
	}
	defer s.conns.RemoveListener(ln)

	var backoff time.Duration
	for {
		raw, err := ln.Accept()
		if err != nil {
			if s.conns.Closing() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, errTooManyFiles) {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.Options().Logger.Warn("accept failed; retrying", "err", err, "backoff", backoff)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		s.relay.accepted.Add(1)
		c := newConn(s, raw)
		if s.ActiveConns() >= c.opts.MaxClientConn {
			s.relay.refused.Add(1)
			if s.refusing.Load() >= maxRefusing {
				raw.Close()
				continue
			}
			c.refused = true
			s.refusing.Add(1)
		}
		if !s.conns.Add(c) {
			raw.Close()
			return ErrServerClosed
		}
		go s.serveConn(c)
	}
}

// Connections over MaxClientConn are answered as PostgreSQL answers them,
// with FATAL 53300 after the startup message (TLS included, so that the
// client can read it). At most maxRefusing are answered at once, each
// within refuseTimeout; beyond that they are closed without a word.
const (
	maxRefusing   = 64
	refuseTimeout = 5 * time.Second
)

func (s *Server) serveConn(c *conn) {
	if err := c.run(); !errors.Is(err, errParked) {
		s.connDone(c, err)
	}
}

// connDone accounts for the end of c, finished with err.
func (s *Server) connDone(c *conn, err error) {
	if c.refused {
		s.refusing.Add(-1) // before Done: never counts fewer than are served
	}
	s.conns.Done(c)
	if f := s.knobs.onConnEnd; f != nil {
		f(c.id, err)
	}
}

// ActiveConns returns the number of connections being served, not
// counting those being refused for being over MaxClientConn.
func (s *Server) ActiveConns() int { return s.conns.Len() - int(s.refusing.Load()) }

// Shutdown stops accepting, waits for connections to end on their own until
// ctx is done, then ends the rest with an admin_shutdown error. It returns
// ctx.Err() if connections had to be ended.
func (s *Server) Shutdown(ctx context.Context) error { return s.conns.Shutdown(ctx) }

// Close stops accepting and ends all connections at once.
func (s *Server) Close() error {
	s.conns.Close()
	return nil
}
