package dbfree

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
)

// ErrServerClosed is returned by Serve after Shutdown or Close.
var ErrServerClosed = errors.New("dbfree: server closed")

// Server answers PostgreSQL clients without a database behind it.
type Server struct {
	cur    atomic.Pointer[settings]
	judger *equivalence.Judger
	nextID atomic.Uint32

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	closing   bool
	connWG    sync.WaitGroup
}

// settings are Options with what is derived from them.
type settings struct {
	opts   Options
	secret *scramSecret // nil: trust
}

// New returns a Server with opts (see Options for defaults).
func New(opts Options) (*Server, error) {
	j, err := equivalence.NewJudger(equivalence.JudgerOptions{})
	if err != nil {
		return nil, err
	}
	s := &Server{judger: j, listeners: map[net.Listener]struct{}{}, conns: map[*conn]struct{}{}}
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
		if st.secret, err = newSCRAMSecret(o.Password); err != nil {
			return err
		}
	}
	s.cur.Store(st)
	return nil
}

// Judger returns the server's judge, whose cache statistics show how often
// references were reused.
func (s *Server) Judger() *equivalence.Judger { return s.judger }

// Serve accepts connections on ln until Shutdown or Close, then returns
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
			if errors.As(err, &ne) && ne.Timeout() {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
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
		go func() {
			defer s.connWG.Done()
			c.run()
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
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

// Shutdown stops accepting, waits for connections to end until ctx is
// done, then ends the rest with an admin_shutdown error and returns
// ctx.Err().
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
	for c := range s.conns {
		c.abort()
	}
	s.mu.Unlock()
}
