package proxy

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/protocol"
	"github.com/pgequiv/pgequiv/proxy/scram"
)

// AdminOptions enable the admin console: a client connecting to the
// virtual database Database as one of Users is answered by the proxy
// itself, over the simple query protocol, and never reaches the upstream.
type AdminOptions struct {
	// Database is the virtual database's name; default "pgequiv".
	Database string
	// Users may connect; nobody else may.
	Users []string
	// Password, if set, is asked for with SCRAM-SHA-256; empty means
	// trust. Failed logins are throttled per source address.
	Password string
	// RequireTLS refuses console connections without TLS (ClientTLS must
	// be set).
	RequireTLS bool
	// Console answers the statements.
	Console AdminConsole

	secret *scram.Secret // from Password, made by Options.withDefaults
}

// AdminError is an admin console error with a SQLSTATE.
type AdminError struct {
	Code    string
	Message string
}

func (e *AdminError) Error() string { return e.Message }

// SQLSTATEs of the admin console.
const (
	pgCodeInvalidAuthSpec   = "28000"
	pgCodeInvalidPassword   = "28P01"
	pgCodeFeatureNotSupport = "0A000"
	pgCodeSyntaxError       = "42601"
)

// serveAdmin runs an admin console session on the client connection.
func (c *conn) serveAdmin(startup *pgproto3.StartupMessage) error {
	a := c.opts.Admin
	n := c.bufSize()
	c.relayBufs = &relayBufs{size: n, clW: bufio.NewWriterSize(sideWriter{c.client, CodeClientWrite}, n)}
	c.clR = protocol.NewReader(flushingReader{c.client, c.clW}, n, c.opts.MaxMessageSize)
	c.state.Store(int32(stateAuth))
	if !slices.Contains(a.Users, c.session.User) {
		c.writeFatal(pgCodeInvalidAuthSpec, fmt.Sprintf("pgequiv: user %q may not use the admin console", c.session.User))
		return newErrorf(CodeAuthFailed, "admin console: user %q not allowed", c.session.User)
	}
	if neg := protocol.Negotiate(startup); neg.NeedsAnswer() {
		if err := c.writeBackend(neg.Answer()); err != nil {
			return err
		}
	}
	if err := c.adminGate(a); err != nil {
		return err
	}
	if a.secret != nil {
		if err := c.adminAuthenticate(a); err != nil {
			return err
		}
	}
	msgs := []pgproto3.BackendMessage{&pgproto3.AuthenticationOk{}}
	for _, p := range [][2]string{
		{"server_version", "16.0 (pgequiv admin console)"}, {"server_encoding", "UTF8"}, {"client_encoding", "UTF8"},
		{"DateStyle", "ISO, MDY"}, {"integer_datetimes", "on"}, {"standard_conforming_strings", "on"},
		{"application_name", c.session.ApplicationName}, {"is_superuser", "off"}, {"session_authorization", c.session.User},
	} {
		msgs = append(msgs, &pgproto3.ParameterStatus{Name: p[0], Value: p[1]})
	}
	msgs = append(msgs, &pgproto3.ReadyForQuery{TxStatus: 'I'})
	for _, m := range msgs {
		if err := c.writeBackend(m); err != nil {
			return err
		}
	}
	_ = c.client.SetDeadline(timeZero)
	c.admin.Store(true)
	c.state.Store(int32(stateRelay))
	c.logLifecycle("client connected", "admin_console", true)
	a2 := newAdminSession(c)
	for {
		frame, err := c.clR.Next()
		if err != nil {
			if c.ctx.Err() != nil {
				c.writeFatal(pgCodeAdminShutdown, "terminating connection because pgequiv is shutting down")
				return &Error{Code: CodeShutdown, Err: c.ctx.Err()}
			}
			return classify(err, CodeClientRead, CodeClientProtocol)
		}
		if frame[0] == protocol.TypeTerminate {
			_ = c.clW.Flush()
			return nil
		}
		if err := a2.handle(frame); err != nil {
			return err
		}
	}
}

// ServeAdmin serves an admin console session on nc, a client connection
// (TLS already negotiated) whose StartupMessage the caller has read:
// database-free mode hands its admin database's connections here. It
// returns when the session ends; nc is closed.
func (s *Server) ServeAdmin(nc net.Conn, startup *pgproto3.StartupMessage) error {
	c := newConn(s, nc)
	if c.opts.Admin == nil {
		nc.Close()
		return errors.New("proxy: ServeAdmin without an admin console")
	}
	if !s.conns.Add(c) {
		nc.Close()
		return ErrServerClosed
	}
	defer s.conns.Done(c)
	defer c.Close()
	_ = nc.SetDeadline(time.Now().Add(c.opts.StartupTimeout))
	c.session.User = startup.Parameters["user"]
	c.session.Database = startup.Parameters["database"]
	c.session.ApplicationName = startup.Parameters["application_name"]
	c.nameLog()
	return c.serveAdmin(startup)
}

func adminError(code, msg string) *pgproto3.ErrorResponse {
	return &pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: code, Message: msg}
}

func (c *conn) writeBackend(m pgproto3.BackendMessage) error {
	b, err := m.Encode(nil)
	if err != nil {
		return &Error{Code: CodeClientWrite, Err: err}
	}
	_, err = c.clW.Write(b)
	return err
}

// ClientInfo describes one client connection: relayed, or an admin
// console session (State admin).
type ClientInfo struct {
	ConnID          uint64
	User            string
	Database        string
	ApplicationName string
	Addr            string
	State           string
	Since           time.Time
}

// Clients lists the connections past startup, oldest first.
func (s *Server) Clients() []ClientInfo {
	var out []ClientInfo
	for _, c := range s.conns.Snapshot() {
		st := connState(c.state.Load())
		if st != stateRelay {
			continue // the session is filled in before the relay state is stored
		}
		state := st.String()
		if c.admin.Load() {
			state = "admin" // the console answers it; nothing is relayed
		}
		out = append(out, ClientInfo{ConnID: c.id, User: c.session.User, Database: c.session.Database,
			ApplicationName: c.session.ApplicationName, Addr: c.remoteAddr, State: state, Since: c.since})
	}
	slices.SortFunc(out, func(a, b ClientInfo) int { return cmp.Compare(a.ConnID, b.ConnID) })
	return out
}
