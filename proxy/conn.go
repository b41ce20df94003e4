package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pgequiv/pgequiv/protocol"
	"github.com/pgequiv/pgequiv/proxy/connset"
)

// connState is the lifecycle state of a proxied connection.
type connState int32

const (
	// stateStartup: reading the startup packet, TLS, dialing upstream.
	stateStartup connState = iota
	// stateAuth: relaying authentication until the first ReadyForQuery.
	stateAuth
	// stateRelay: forwarding frames in both directions.
	stateRelay
	// stateClosed: Close has run; nothing more is read or written.
	stateClosed
)

func (s connState) String() string {
	switch s {
	case stateStartup:
		return "startup"
	case stateAuth:
		return "auth"
	case stateRelay:
		return "relay"
	case stateClosed:
		return "closed"
	}
	return "unknown"
}

var timeZero time.Time

// conn is one client connection and its upstream connection.
//
// It has one context, cancelled by Close; errCh (size 1) keeps the first
// error of either relay goroutine or of abort; Close is idempotent.
type conn struct {
	s    *Server
	id   uint64
	opts *Options // shared with the Server and other connections: read only
	// log is built on first use (connlog.go); logNamed: its lines name
	// the session's user and database.
	log      atomic.Pointer[slog.Logger]
	logNamed bool
	ctx      context.Context
	cancel   context.CancelFunc
	errCh    chan error
	state    atomic.Int32
	admin    atomic.Bool // an admin console session, answered by the proxy
	// refused: the server was full when the connection came; it is told
	// so after its startup message and closed.
	refused bool

	closeOnce sync.Once
	connMu    sync.Mutex // guards client and upstream while they change during startup
	client    net.Conn   // after TLS
	upstream  net.Conn
	// dialCancel ends the upstream dial in progress, if any (dial).
	dialCancel context.CancelFunc

	// The readers and writers of authentication and the goroutine relay
	// (clR, upR, clW and upW; relaybufs.go), nil while the fast relay has
	// the connection.
	*relayBufs

	session    Session
	remoteAddr string
	since      time.Time
	proxyPID   uint32 // registered cancel key; 0 if none

	inj injector

	// Owned by the client→upstream goroutine.
	zSent      uint64 // messages sent upstream that end with ReadyForQuery
	discarding bool   // a refused Parse: drop messages until Sync
	// The goroutine relay's decoded messages (nil until it starts).
	*clientDecode
	bt bindTracker // statements judged at Bind (conn_bind.go)

	// Owned by the upstream→client goroutine.
	zRecv    uint64 // ReadyForQuery messages seen
	sawError bool   // an ErrorResponse since the last ReadyForQuery

	// clSkip and upSkip are the rest of a frame the fast relay had begun
	// to forward when it handed the connection over (see resume).
	clSkip, upSkip int

	terminated atomic.Bool // the client sent Terminate

	// parked is the connection's state on the fast relay while it is
	// there, for abort.
	parked atomic.Pointer[fastConn]

	// hidPlus: authentication hid the upstream's SCRAM -PLUS mechanisms
	// (auth.go); a channel-binding failure then gets a hint.
	hidPlus bool

	// strs follows standard_conforming_strings (strings_state.go).
	strs stringsState
}

func newConn(s *Server, raw net.Conn) *conn {
	id := s.nextID.Add(1)
	opts := s.opts.Load()
	ctx, cancel := context.WithCancel(context.Background())
	c := &conn{
		s: s, id: id, opts: opts, ctx: ctx, cancel: cancel,
		errCh:  make(chan error, 1),
		client: raw, remoteAddr: raw.RemoteAddr().String(), since: time.Now(),
	}
	c.session.ConnID = id
	return c
}

// sendErr records err as the connection's error unless one is recorded.
func (c *conn) sendErr(err error) {
	select {
	case c.errCh <- err:
	default:
	}
}

// abort ends the connection from outside: it records err and interrupts
// any blocked I/O. The connection's own goroutine then tears down.
func (c *conn) abort(err error) {
	c.sendErr(err)
	c.cancel()
	// No goroutine watches c.ctx while the fast relay has the
	// connection: tell the loop (relayFast checks c.ctx after setting
	// parked, so an abort racing it is not lost).
	if fc := c.parked.Load(); fc != nil {
		fc.abort()
	}
	now := time.Now()
	c.connMu.Lock()
	if c.dialCancel != nil {
		c.dialCancel()
	}
	if c.client != nil {
		_ = c.client.SetDeadline(now)
	}
	if c.upstream != nil {
		_ = c.upstream.SetDeadline(now)
	}
	c.connMu.Unlock()
}

// Close releases everything; it is idempotent.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		c.state.Store(int32(stateClosed))
		c.cancel()
		c.inj.close()
		if c.proxyPID != 0 {
			c.s.cancels.unregister(c.proxyPID)
		}
		c.connMu.Lock()
		if c.client != nil {
			c.client.Close()
		}
		if c.upstream != nil {
			c.upstream.Close()
		}
		c.connMu.Unlock()
	})
	return nil
}

func (c *conn) bufSize() int {
	if n := c.s.knobs.bufferSize; n > 0 {
		return n
	}
	return protocol.DefaultBufferSize
}

// run serves the connection to the end and returns why it ended (nil for a
// cancel request or a client that terminated normally).
//
// It returns errParked, having finished nothing, when the connection went
// on to the fast relay: the goroutine that picks it up from there finishes
// it (afterFast), so that no goroutine waits while it is idle there.
func (c *conn) run() (err error) {
	defer func() {
		if !errors.Is(err, errParked) {
			err = c.finish(err)
		}
	}()

	_ = c.client.SetDeadline(time.Now().Add(connset.StartupTimeout(c.opts.StartupTimeout, c.refused)))
	client, msg, err := protocol.Accept(c.ctx, c.client, protocol.AcceptConfig{TLS: c.opts.ClientTLS})
	c.setConns(client, nil)
	if err != nil {
		if protocol.IsProtocolViolation(err) || errors.Is(err, protocol.ErrUnsupported) {
			c.writeViolation(err)
			return &Error{Code: CodeClientProtocol, Err: err}
		}
		return &Error{Code: CodeClientRead, Err: err}
	}
	switch m := msg.(type) {
	case *pgproto3.CancelRequest:
		found, err := c.s.forwardCancel(c.ctx, m)
		c.logDebug("cancel request", "found", found, "err", err)
		return err
	case *pgproto3.StartupMessage:
		if c.refused {
			c.writeFatal(pgCodeTooManyConnections, connset.TooManyClientsMessage)
			return &Error{Code: CodeTooManyClients, Err: fmt.Errorf("max_client_conn %d reached", c.opts.MaxClientConn)}
		}
		return c.serve(m)
	}
	return newErrorf(CodeClientProtocol, "unexpected startup message %T", msg)
}

// errParked is returned by run, serve and relay for a connection handed
// to the fast relay: it is not over, and its goroutine must not finish it.
var errParked = errors.New("connection parked on the fast relay")

// finish closes the connection and logs its end; err is why it ended,
// which it returns (an abort's shutdown reason, if any, in its place).
func (c *conn) finish(err error) error {
	// An abort during startup shows as a deadline error; report the reason.
	if err != nil {
		select {
		case first := <-c.errCh:
			if CodeOf(first) == CodeShutdown {
				err = first
			}
		default:
		}
	}
	// Log the state the connection ended in, before Close marks it.
	state := connState(c.state.Load())
	c.Close()
	c.logEnd(state, err)
	return err
}

func (c *conn) setConns(client, upstream net.Conn) {
	c.connMu.Lock()
	if client != nil {
		c.client = client
	}
	if upstream != nil {
		c.upstream = upstream
	}
	c.connMu.Unlock()
}

func (c *conn) serve(startup *pgproto3.StartupMessage) error {
	c.session.User = startup.Parameters["user"]
	c.session.Database = startup.Parameters["database"]
	if c.session.Database == "" {
		c.session.Database = c.session.User
	}
	c.session.ApplicationName = startup.Parameters["application_name"]
	c.strs.startupEncoding(startup.Parameters)
	if t, ok := c.opts.Observer.(SessionTracker); ok {
		c.session.State = t.TrackSession(&c.session, startup.Parameters)
	}
	c.nameLog()
	if a := c.opts.Admin; a != nil && c.session.Database == a.Database {
		return c.serveAdmin(startup)
	}

	// connect_timeout bounds the whole upstream startup: TCP, TLS,
	// authentication and the first ReadyForQuery.
	upDeadline := time.Now().Add(c.opts.Upstream.ConnectTimeout)
	up, err := c.dial()
	if err != nil {
		c.s.relay.upstreamErrors.Add(1)
		c.writeFatal(pgCodeConnectionFailure, c.upstreamFailure(err))
		return err
	}
	c.setConns(nil, up)
	if c.ctx.Err() != nil { // aborted while dialing
		return &Error{Code: CodeShutdown, Err: c.ctx.Err()}
	}
	_ = up.SetDeadline(upDeadline)

	c.wireRelay(c.client, up, nil, nil, c.authBufSize())

	c.state.Store(int32(stateAuth))
	if err := c.authenticate(startup); err != nil {
		if c.ctx.Err() == nil && upstreamTimedOut(err) {
			c.s.relay.upstreamErrors.Add(1)
			c.writeFatal(pgCodeConnectionFailure, c.upstreamFailure(err))
		}
		return err
	}
	_ = c.client.SetDeadline(timeZero)
	_ = up.SetDeadline(timeZero)
	c.state.Store(int32(stateRelay))
	c.logLifecycle("client connected", "application_name", c.session.ApplicationName)
	return c.relay()
}

// relay hands the connection to the fast relay if it can (and returns
// errParked), or else forwards on two goroutines until the first error
// and tears down.
func (c *conn) relay() error {
	if filter, ok := c.fastFilter(); ok && c.relayFast(filter) {
		return errParked
	}
	c.growRelay()
	return c.relayGoroutines()
}

// endFast tears down a connection the fast relay ended with err.
func (c *conn) endFast(err error) error {
	c.sendErr(err)
	err = <-c.errCh // an abort's reason wins, as in relayGoroutines
	c.cancel()
	return c.endRelay(err)
}

// relayGoroutines forwards on two goroutines until the first error, and
// tears down.
func (c *conn) relayGoroutines() error {
	c.s.relay.goroutine.Add(1)
	c.decodeState()
	c.startBindTracking()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if n := c.clSkip; n > 0 {
			c.clSkip = 0
			if err := c.clR.ForwardRaw(c.upW, n); err != nil {
				c.sendErr(classify(err, CodeClientRead, CodeClientProtocol))
				return
			}
		}
		for {
			if err := c.clientStep(); err != nil {
				c.sendErr(err)
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		if n := c.upSkip; n > 0 {
			c.upSkip = 0
			if err := c.upR.ForwardRaw(c.clW, n); err != nil {
				c.sendErr(classify(err, CodeBackendRead, CodeBackendProtocol))
				return
			}
		}
		for {
			if err := c.upstreamStep(); err != nil {
				c.sendErr(err)
				return
			}
		}
	}()
	err := <-c.errCh
	// Interrupt whichever goroutine is still blocked: in I/O, in a
	// synchronous judgement, or waiting for a deferred notice.
	c.cancel()
	now := time.Now()
	_ = c.upstream.SetDeadline(now)
	_ = c.client.SetDeadline(now)
	wg.Wait()
	return c.endRelay(err)
}

// endRelay reports err, the first error of the relay, to the client where
// the goroutine relay would, and returns the connection's final error.
func (c *conn) endRelay(err error) error {
	// The final FATAL goes straight to the client socket. If the upstream
	// goroutine was cut off mid-frame the client's stream is already broken
	// and the message is best effort; at frame boundaries it is exact.
	switch code := CodeOf(err); {
	case code == CodeClientProtocol:
		c.writeViolation(err)
	case code == CodeShutdown:
		c.writeFatal(pgCodeAdminShutdown, "terminating connection because pgequiv is shutting down")
	case code == CodeClientRead && errors.Is(err, io.EOF):
		return nil // the client hung up
	case c.terminated.Load() && errors.Is(err, io.EOF):
		return nil // the upstream closed after the client's Terminate
	}
	return err
}

// clientStep forwards one message from the client to the upstream.
func (c *conn) clientStep() error {
	typ, n, err := c.clR.PeekHeader()
	if err != nil {
		return classify(err, CodeClientRead, CodeClientProtocol)
	}
	if c.needsBindFrame(typ) {
		return c.handleNext(typ)
	}
	switch typ {
	case protocol.TypeQuery, protocol.TypeParse, protocol.TypeSync:
		return c.handleNext(typ)
	case protocol.TypeBind, protocol.TypeExecute, protocol.TypeClose:
		if typ == protocol.TypeExecute {
			c.strs.execSinceSync = true
		}
		// Decoded only for debug logging; otherwise streamed, so large
		// Bind parameters are never held whole.
		if !c.discarding && c.debug() {
			return c.handleNext(typ)
		}
	case protocol.TypeFunctionCall:
		if _, nop := c.opts.Observer.(NopObserver); !nop && !c.discarding {
			return c.handleNext(typ) // the observer may refuse it
		}
		c.zSent++
	case protocol.TypeTerminate:
		// The upstream closes after Terminate; that EOF is a clean end.
		c.terminated.Store(true)
		// The client reads nothing more: stop holding ReadyForQuery
		// for notices.
		c.inj.close()
	}
	w := io.Writer(c.upW)
	if c.discarding {
		w = io.Discard
	}
	if _, err := c.clR.Forward(w); err != nil {
		return classify(err, CodeClientRead, CodeClientProtocol)
	}
	c.s.relay.addRelayed(dirToUpstream, 1+uint64(n), 1)
	return nil
}

// handleNext reads the whole next message and hands it to handleFrontend.
func (c *conn) handleNext(typ byte) error {
	frame, err := c.clR.Next()
	if err != nil {
		return classify(err, CodeClientRead, CodeClientProtocol)
	}
	c.s.relay.addRelayed(dirToUpstream, uint64(len(frame)), 1)
	return c.handleFrontend(typ, frame)
}

// upstreamStep forwards one message from the upstream to the client,
// adding injected messages before ReadyForQuery.
func (c *conn) upstreamStep() error {
	typ, n, err := c.upR.PeekHeader()
	if err != nil {
		return classify(err, CodeBackendRead, CodeBackendProtocol)
	}
	switch typ {
	case protocol.TypeErrorResponse:
		c.sawError = true
	case protocol.TypeParameterDescription:
		if c.bt.tracking.Load() {
			frame, err := c.upR.Next()
			if err != nil {
				return classify(err, CodeBackendRead, CodeBackendProtocol)
			}
			c.noteParameterDescription(protocol.Body(frame))
			if _, err := c.clW.Write(frame); err != nil {
				return err
			}
			c.s.relay.addRelayed(dirToClient, uint64(len(frame)), 1)
			return nil
		}
	case protocol.TypeParameterStatus:
		frame, err := c.upR.Next()
		if err != nil {
			return classify(err, CodeBackendRead, CodeBackendProtocol)
		}
		c.strs.noteParameterStatus(frame)
		if _, err := c.clW.Write(frame); err != nil {
			return err
		}
		c.s.relay.addRelayed(dirToClient, uint64(len(frame)), 1)
		return nil
	case protocol.TypeReadyForQuery:
		c.zRecv++
		c.strs.done.Store(c.zRecv)
		// The observer's state follows the transaction (SessionTracker).
		var status byte
		if n == protocol.HeaderLen+1 {
			if b, err := c.upR.Peek(n); err == nil {
				status = b[protocol.HeaderLen]
			}
		}
		if st := c.session.State; st != nil {
			st.ReadyForQuery(c.zRecv, status, c.sawError)
		}
		if c.inj.pending.Load() > 0 {
			if err := c.inj.flush(c.clW, c.zRecv, c.sawError, c.ctx.Done()); err != nil {
				return err
			}
		}
		c.sawError = false
	}
	if _, err := c.upR.Forward(c.clW); err != nil {
		return classify(err, CodeBackendRead, CodeBackendProtocol)
	}
	c.s.relay.addRelayed(dirToClient, 1+uint64(n), 1)
	return nil
}

// classify turns a read-side error into an *Error: protocol violations get
// protoCode, other errors readCode; errors already classified (write errors
// from the other side's writer) are kept.
func classify(err error, readCode, protoCode ErrorCode) error {
	if CodeOf(err) != CodeNone {
		return err
	}
	if protocol.IsProtocolViolation(err) {
		return &Error{Code: protoCode, Err: err}
	}
	return &Error{Code: readCode, Err: err}
}

// SQLSTATEs the proxy itself reports.
const (
	pgCodeProtocolViolation = "08P01"
	pgCodeConnectionFailure = "08006"
	pgCodeAdminShutdown     = "57P01"
	// pgCodeTooManyConnections is too_many_connections.
	pgCodeTooManyConnections = connset.TooManyClientsCode
)

// writeFatal sends a FATAL ErrorResponse straight to the client, bounded by
// a short write deadline. Errors are ignored: the connection is ending.
func (c *conn) writeFatal(code, msg string) {
	b, err := (&pgproto3.ErrorResponse{Severity: "FATAL", SeverityUnlocalized: "FATAL", Code: code, Message: msg}).Encode(nil)
	if err != nil {
		return
	}
	_ = c.client.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = c.client.Write(b)
}

// writeViolation reports a client's protocol violation and lingers so the
// client can read the report.
func (c *conn) writeViolation(err error) {
	c.writeFatal(pgCodeProtocolViolation, err.Error())
	c.lingerClose()
}

// lingerClose ends the client's side after a final error message: it
// closes the write half (the client sees the error, then EOF) and discards
// what the client is still sending for a short while. Closing with unread
// input would make the kernel send a reset, which can destroy the error
// message before the client reads it.
func (c *conn) lingerClose() {
	cw, ok := c.client.(interface{ CloseWrite() error })
	if !ok || cw.CloseWrite() != nil {
		return
	}
	_ = c.client.SetReadDeadline(time.Now().Add(lingerTimeout))
	_, _ = io.CopyN(io.Discard, c.client, lingerMaxBytes)
}

// Bounds of lingerClose.
const (
	lingerTimeout  = 2 * time.Second
	lingerMaxBytes = 256 << 20
)

func (c *conn) logEnd(state connState, err error) {
	switch {
	case err == nil || IsClientGone(err):
		if state == stateRelay {
			c.logLifecycle("client disconnected", "age", time.Since(c.since).Round(time.Millisecond).String())
		} else {
			c.logDebug("connection closed", "state", state.String(), "err", err)
		}
	case CodeOf(err) == CodeAuthFailed || CodeOf(err) == CodeShutdown:
		c.logInfo("connection closed", "state", state.String(), "reason", CodeOf(err).String(), "err", err)
	default:
		c.logWarn("connection closed", "state", state.String(), "reason", CodeOf(err).String(), "err", err)
	}
}
