// Package connset tracks a server's listeners and live connections, so
// that stopping is the same everywhere: stop accepting, let connections
// drain until a deadline, then end the rest.
package connset

import (
	"context"
	"net"
	"sync"
)

// Set holds listeners and connections of type C. abort ends one
// connection; it is called without the lock held.
type Set[C comparable] struct {
	abort func(C)

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[C]struct{}
	closing   bool
	wg        sync.WaitGroup
}

// New returns an empty set whose Shutdown and Close end connections with
// abort.
func New[C comparable](abort func(C)) *Set[C] {
	return &Set[C]{abort: abort, listeners: map[net.Listener]struct{}{}, conns: map[C]struct{}{}}
}

// AddListener registers ln so stopping closes it. It reports false, and
// closes ln, when the set is already stopping.
func (s *Set[C]) AddListener(ln net.Listener) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		ln.Close()
		return false
	}
	s.listeners[ln] = struct{}{}
	return true
}

// RemoveListener forgets and closes ln.
func (s *Set[C]) RemoveListener(ln net.Listener) {
	s.mu.Lock()
	delete(s.listeners, ln)
	s.mu.Unlock()
	ln.Close()
}

// Add registers a new connection; false when the set is stopping, in
// which case the caller must not serve it.
func (s *Set[C]) Add(c C) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	return true
}

// Done removes a connection that has ended.
func (s *Set[C]) Done(c C) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	s.wg.Done()
}

// Closing reports whether Shutdown or Close has begun.
func (s *Set[C]) Closing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// Len is the number of live connections.
func (s *Set[C]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Snapshot returns the live connections, in no particular order.
func (s *Set[C]) Snapshot() []C {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]C, 0, len(s.conns))
	for c := range s.conns {
		out = append(out, c)
	}
	return out
}

// Shutdown stops accepting and waits for connections to end until ctx is
// done; then it aborts the rest, waits for them, and returns ctx.Err().
func (s *Set[C]) Shutdown(ctx context.Context) error {
	s.stopAccepting()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
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

// Close stops accepting, aborts every connection and waits for them.
func (s *Set[C]) Close() {
	s.stopAccepting()
	s.abortAll()
	s.wg.Wait()
}

func (s *Set[C]) stopAccepting() {
	s.mu.Lock()
	s.closing = true
	for ln := range s.listeners {
		ln.Close()
	}
	s.mu.Unlock()
}

func (s *Set[C]) abortAll() {
	for _, c := range s.Snapshot() {
		s.abort(c)
	}
}
