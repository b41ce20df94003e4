package proxy

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Server relays client connections to one upstream PostgreSQL server.
type Server struct {
	opts   atomic.Pointer[Options]
	knobs  testingKnobs
	nextID atomic.Uint64

	cancels cancelRegistry

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	closing   bool
	connWG    sync.WaitGroup
}

// New returns a Server with opts (see Options for defaults).
func New(opts Options) (*Server, error) {
	s := &Server{listeners: make(map[net.Listener]struct{}), conns: make(map[*conn]struct{})}
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
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	s.listeners[ln] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
		ln.Close()
	}()

	var backoff time.Duration
	for {
		raw, err := ln.Accept()
		if err != nil {
			if s.isClosing() {
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
		c := newConn(s, raw)
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			raw.Close()
			return ErrServerClosed
		}
		s.conns[c] = struct{}{}
		s.connWG.Add(1)
		s.mu.Unlock()
		go s.serveConn(c)
	}
}

func (s *Server) serveConn(c *conn) {
	defer s.connWG.Done()
	err := c.run()
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	if f := s.knobs.onConnEnd; f != nil {
		f(c.id, err)
	}
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// ActiveConns returns the number of connections being served.
func (s *Server) ActiveConns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Shutdown stops accepting, waits for connections to end on their own until
// ctx is done, then ends the rest with an admin_shutdown error. It returns
// ctx.Err() if connections had to be ended.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopAccepting()
	done := make(chan struct{})
	go func() {
		s.connWG.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	s.abortAll()
	<-done
	return ctx.Err()
}

// Close stops accepting and ends all connections at once.
func (s *Server) Close() error {
	s.stopAccepting()
	s.abortAll()
	s.connWG.Wait()
	return nil
}

func (s *Server) stopAccepting() {
	s.mu.Lock()
	s.closing = true
	for ln := range s.listeners {
		ln.Close()
	}
	s.mu.Unlock()
}

func (s *Server) abortAll() {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.abort(&Error{Code: CodeShutdown, Err: errors.New("server shutting down")})
	}
}
