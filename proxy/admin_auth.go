package proxy

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/protocol"
	"github.com/pgequiv/pgequiv/proxy/scram"
)

// adminGate checks what comes before the console's password: TLS when it
// is required, and the source's login throttle.
func (c *conn) adminGate(a *AdminOptions) error {
	if a.RequireTLS {
		if _, ok := c.client.(*tls.Conn); !ok {
			c.writeAdminFatal(pgCodeInvalidAuthSpec, "pgequiv: the admin console requires TLS (admin.require_tls)",
				"Connect with sslmode=require (or verify-full).")
			return newErrorf(CodeAuthFailed, "admin console: %q connected without TLS", c.session.User)
		}
	}
	if a.secret == nil {
		return nil
	}
	if wait := c.s.adminThrottle.wait(c.sourceHost(), c.now()); wait > 0 {
		c.logWarn("admin console login throttled", "source", c.sourceHost(), "retry_in", wait)
		c.writeAdminFatal(pgCodeInvalidAuthSpec,
			fmt.Sprintf("pgequiv: too many failed admin console logins from %s; retry in %v", c.sourceHost(), wait.Round(time.Millisecond)),
			"Each failed login doubles the wait, up to a minute; a successful one resets it.")
		return newErrorf(CodeAuthFailed, "admin console: login from %s throttled", c.sourceHost())
	}
	return nil
}

// adminAuthenticate asks for the console password with SCRAM-SHA-256,
// as PostgreSQL does for a role with a SCRAM secret (no password travels,
// in clear or hashed); a failure counts against the source's throttle.
func (c *conn) adminAuthenticate(a *AdminOptions) error {
	x := &scram.Exchange{Secret: a.secret}
	msg, err := c.adminSASL(&pgproto3.AuthenticationSASL{AuthMechanisms: []string{scram.Mechanism}})
	if err != nil {
		return err
	}
	var init pgproto3.SASLInitialResponse
	if err := init.Decode(msg); err != nil || init.AuthMechanism != scram.Mechanism {
		return c.adminAuthViolation(fmt.Errorf("expected a SASL initial response for %s", scram.Mechanism))
	}
	serverFirst, err := x.First(string(init.Data))
	if err != nil {
		return c.adminAuthViolation(err)
	}
	if msg, err = c.adminSASL(&pgproto3.AuthenticationSASLContinue{Data: []byte(serverFirst)}); err != nil {
		return err
	}
	var resp pgproto3.SASLResponse
	if err := resp.Decode(msg); err != nil {
		return c.adminAuthViolation(err)
	}
	serverFinal, err := x.Final(string(resp.Data))
	if errors.Is(err, scram.ErrBadPassword) {
		c.s.adminThrottle.failed(c.sourceHost(), c.now())
		c.logWarn("admin console: password authentication failed", "source", c.sourceHost())
		c.writeFatal(pgCodeInvalidPassword, fmt.Sprintf("password authentication failed for user %q", c.session.User))
		return newErrorf(CodeAuthFailed, "admin console: wrong password for %q", c.session.User)
	}
	if err != nil {
		return c.adminAuthViolation(err)
	}
	c.s.adminThrottle.succeeded(c.sourceHost())
	return c.writeBackend(&pgproto3.AuthenticationSASLFinal{Data: []byte(serverFinal)})
}

// adminSASL sends an authentication request and returns the body of the
// client's password-type answer.
func (c *conn) adminSASL(m pgproto3.BackendMessage) ([]byte, error) {
	if err := c.writeBackend(m); err != nil {
		return nil, err
	}
	if err := c.clW.Flush(); err != nil {
		return nil, err
	}
	frame, err := c.clR.Next()
	if err != nil {
		return nil, classify(err, CodeClientRead, CodeClientProtocol)
	}
	if frame[0] != protocol.TypePassword {
		return nil, c.adminAuthViolation(fmt.Errorf("expected a SASL message, got %q", frame[0]))
	}
	return protocol.Body(frame), nil
}

func (c *conn) adminAuthViolation(err error) error {
	c.writeFatal(pgCodeProtocolViolation, "pgequiv: admin console: "+err.Error())
	return &Error{Code: CodeClientProtocol, Err: fmt.Errorf("admin console: %w", err)}
}

// writeAdminFatal is writeFatal with a hint.
func (c *conn) writeAdminFatal(code, msg, hint string) {
	b, err := (&pgproto3.ErrorResponse{Severity: "FATAL", SeverityUnlocalized: "FATAL", Code: code, Message: msg, Hint: hint}).Encode(nil)
	if err != nil {
		return
	}
	_ = c.client.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = c.client.Write(b)
}

// sourceHost is the client's address without its port: the unit the
// login throttle counts by.
func (c *conn) sourceHost() string {
	host, _, err := net.SplitHostPort(c.remoteAddr)
	if err != nil {
		return c.remoteAddr
	}
	return host
}

func (c *conn) now() time.Time {
	if f := c.s.knobs.now; f != nil {
		return f()
	}
	return time.Now()
}

// Login throttle: the first adminFreeFailures failures from a source cost
// nothing (typos); each later one makes the source wait twice as long as
// the one before, from adminBaseDelay up to adminMaxDelay, before its next
// attempt is even read. A success resets the source. At most
// adminMaxSources are tracked; past that, sources whose wait is over are
// forgotten, then the oldest.
const (
	adminFreeFailures = 3
	adminBaseDelay    = 250 * time.Millisecond
	adminMaxDelay     = time.Minute
	adminMaxSources   = 10000
)

type adminThrottle struct {
	mu      sync.Mutex
	sources map[string]*throttleState
}

type throttleState struct {
	failures int
	until    time.Time
}

// wait returns how long src must still wait before a login attempt.
func (t *adminThrottle) wait(src string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if st := t.sources[src]; st != nil && now.Before(st.until) {
		return st.until.Sub(now)
	}
	return 0
}

func (t *adminThrottle) failed(src string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sources == nil {
		t.sources = map[string]*throttleState{}
	}
	st := t.sources[src]
	if st == nil {
		if len(t.sources) >= adminMaxSources {
			t.evict(now)
		}
		st = &throttleState{}
		t.sources[src] = st
	}
	st.failures++
	if n := st.failures - adminFreeFailures; n > 0 {
		d := adminMaxDelay
		if n < 16 {
			d = min(adminBaseDelay<<(n-1), adminMaxDelay)
		}
		st.until = now.Add(d)
	}
}

func (t *adminThrottle) succeeded(src string) {
	t.mu.Lock()
	delete(t.sources, src)
	t.mu.Unlock()
}

// evict forgets sources whose wait is over, or else the one whose wait
// ends first.
func (t *adminThrottle) evict(now time.Time) {
	var first string
	for src, st := range t.sources {
		if !now.Before(st.until) {
			delete(t.sources, src)
		} else if first == "" || st.until.Before(t.sources[first].until) {
			first = src
		}
	}
	if len(t.sources) >= adminMaxSources && first != "" {
		delete(t.sources, first)
	}
}
