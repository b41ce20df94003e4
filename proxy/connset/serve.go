package connset

import (
	"errors"
	"log/slog"
	"net"
	"sync/atomic"
	"syscall"
	"time"
)

// Connections over max_client_conn are answered as PostgreSQL answers
// them, with FATAL TooManyClientsCode TooManyClientsMessage after the
// startup message (TLS included, so that the client can read it). At most
// MaxRefusing are answered at once, each within RefuseTimeout; beyond
// that they are closed without a word.
const (
	MaxRefusing   = 64
	RefuseTimeout = 5 * time.Second

	TooManyClientsCode    = "53300" // too_many_connections
	TooManyClientsMessage = "sorry, too many clients already"
)

// StartupTimeout is how long a connection has for its startup: timeout,
// or RefuseTimeout if shorter when the connection is refused.
func StartupTimeout(timeout time.Duration, refused bool) time.Duration {
	if refused {
		return min(timeout, RefuseTimeout)
	}
	return timeout
}

// Handler tells Serve how to make, limit and serve one server's
// connections.
type Handler[C comparable] struct {
	// New wraps a connection just accepted.
	New func(net.Conn) C
	// Limit is the max_client_conn of the options c was made with.
	Limit func(C) int
	// Refuse marks c as over the limit: it is to be told so and closed.
	// It is called before c joins the set, so that readers of the set
	// (metrics, SHOW CLIENTS) see the mark.
	Refuse func(C)
	// Serve serves c; Serve runs it on a goroutine of its own. Whoever
	// ends c calls Done.
	Serve func(C)
	// Logger is where retried accept errors are logged; nil: nowhere.
	Logger func() *slog.Logger
	// Closed is what Serve returns once the set is stopping.
	Closed error
}

// counters count what Serve accepted, read by the servers' metrics.
type counters struct {
	admitted, refused atomic.Uint64
}

// Admitted is how many connections Serve accepted under max_client_conn.
func (s *Set[C]) Admitted() uint64 { return s.counters.admitted.Load() }

// Refused is how many connections Serve accepted over max_client_conn
// (told so, or closed without a word beyond MaxRefusing).
func (s *Set[C]) Refused() uint64 { return s.counters.refused.Load() }

// Serve accepts connections on ln until Shutdown or Close, then returns
// h.Closed. It closes ln when it returns. An accept error that may pass
// (a timeout, or EMFILE: out of file descriptors until connections end)
// is retried after a backoff; any other is returned.
func (s *Set[C]) Serve(ln net.Listener, h Handler[C]) error {
	if !s.AddListener(ln) {
		return h.Closed
	}
	defer s.RemoveListener(ln)
	var backoff time.Duration
	for {
		raw, err := ln.Accept()
		if err != nil {
			if s.Closing() {
				return h.Closed
			}
			if !retryable(err) {
				return err
			}
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			if h.Logger != nil {
				h.Logger().Warn("accept failed; retrying", "err", err, "backoff", backoff)
			}
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		c := h.New(raw)
		refused := s.Active() >= h.Limit(c)
		if refused {
			s.counters.refused.Add(1)
			if s.refusingNow() >= MaxRefusing {
				raw.Close()
				continue
			}
			h.Refuse(c)
		} else {
			s.counters.admitted.Add(1)
		}
		if !s.add(c, refused) {
			raw.Close()
			return h.Closed
		}
		go h.Serve(c)
	}
}

// retryable reports whether an accept error may pass.
func retryable(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, syscall.EMFILE)
}

// refusingNow is how many connections are being refused now.
func (s *Set[C]) refusingNow() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refusing
}
