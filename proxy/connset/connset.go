// Package connset is the server core the relay and the database-free
// server share: it tracks a server's listeners and live connections, runs
// the accept loop (Serve: retries, max_client_conn, refusal of the
// excess), and stops the same way everywhere: stop accepting, let
// connections drain until a deadline, then end the rest.
//
// It imports nothing of the judge or the planner, so that the relay stays
// light.
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
	// conns maps each live connection to whether it was refused (over
	// max_client_conn, only being told so); refusing counts those.
	conns    map[C]bool
	refusing int
	closing  bool
	wg       sync.WaitGroup

	counters counters // serve.go
}

// New returns an empty set whose Shutdown and Close end connections with
// abort.
func New[C comparable](abort func(C)) *Set[C] {
	return &Set[C]{abort: abort, listeners: map[net.Listener]struct{}{}, conns: map[C]bool{}}
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
func (s *Set[C]) Add(c C) bool { return s.add(c, false) }

// add registers c, refused or not.
func (s *Set[C]) add(c C, refused bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[c] = refused
	if refused {
		s.refusing++
	}
	s.wg.Add(1)
	return true
}

// Done removes a connection that has ended.
func (s *Set[C]) Done(c C) {
	s.mu.Lock()
	if s.conns[c] {
		s.refusing--
	}
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

// Active is the number of live connections being served, not counting
// those being refused for being over max_client_conn.
func (s *Set[C]) Active() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns) - s.refusing
}

// Len is the number of live connections, refused ones included.
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
