package proxy

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pgequiv/pgequiv/protocol"
)

// Authentication request codes (the int32 after an 'R' header).
const (
	authOK                = 0
	authCleartextPassword = 3
	authMD5Password       = 5
	authSASL              = 10
	authSASLContinue      = 11
	authSASLFinal         = 12
)

// authenticate sends the startup message upstream and relays the
// authentication exchange unchanged until the first ReadyForQuery, except
// that BackendKeyData is replaced by the proxy's own key and SASL channel
// binding mechanisms are hidden unless the binding would verify (see
// channelBindingMatches).
func (c *conn) authenticate(startup *pgproto3.StartupMessage) error {
	neg := protocol.Negotiate(startup)
	b, err := neg.Forwarded(startup).Encode(nil)
	if err != nil {
		return &Error{Code: CodeClientProtocol, Err: err}
	}
	if _, err := c.upW.Write(b); err != nil {
		return err
	}
	if err := c.upW.Flush(); err != nil {
		return err
	}
	for first := true; ; first = false {
		frame, err := c.upR.Next()
		if err != nil {
			return classify(err, CodeBackendRead, CodeBackendProtocol)
		}
		body := protocol.Body(frame)
		if first {
			if answered, err := c.negotiate(neg, frame); err != nil || answered {
				if err != nil {
					return err
				}
				continue
			}
		}
		switch frame[0] {
		case protocol.TypeAuthentication:
			if err := c.relayAuthRequest(frame, body); err != nil {
				return err
			}
			continue
		case protocol.TypeBackendKeyData:
			var k pgproto3.BackendKeyData
			if err := k.Decode(body); err != nil {
				return &Error{Code: CodeBackendProtocol, Err: err}
			}
			t := &cancelTarget{upstream: &c.opts.Upstream, upPID: k.ProcessID, upSecret: k.SecretKey}
			c.proxyPID = c.s.cancels.register(t)
			frame, err = (&pgproto3.BackendKeyData{ProcessID: c.proxyPID, SecretKey: t.secret}).Encode(nil)
			if err != nil {
				return &Error{Code: CodeBackendProtocol, Err: err}
			}
		case protocol.TypeErrorResponse:
			var e pgproto3.ErrorResponse
			_ = e.Decode(body)
			if hinted, ok := c.channelBindingHint(&e); ok {
				frame = hinted
			}
			if _, err := c.clW.Write(frame); err != nil {
				return err
			}
			_ = c.clW.Flush()
			return &Error{Code: CodeAuthFailed, Err: fmt.Errorf("upstream: %s (SQLSTATE %s)", e.Message, e.Code)}
		}
		if frame[0] == protocol.TypeParameterStatus {
			c.strs.noteParameterStatus(frame)
		}
		if _, err := c.clW.Write(frame); err != nil {
			return err
		}
		if frame[0] == protocol.TypeReadyForQuery {
			return c.clW.Flush()
		}
	}
}

// negotiate answers the client's protocol version and options, as
// PostgreSQL does, with one NegotiateProtocolVersion before the upstream's
// first message: the proxy forwarded a version it speaks and no options
// (see protocol.Negotiation), and the upstream's own answer to that, if
// any, is folded into the proxy's. It reports whether frame was that
// answer (then consumed).
func (c *conn) negotiate(neg protocol.Negotiation, frame []byte) (bool, error) {
	consumed := frame[0] == protocol.TypeNegotiateProto
	if consumed {
		var up pgproto3.NegotiateProtocolVersion
		if err := up.Decode(protocol.Body(frame)); err != nil {
			return true, &Error{Code: CodeBackendProtocol, Err: err}
		}
		neg.Minor = min(neg.Minor, protocol.AnsweredMinor(&up))
		for _, o := range up.UnrecognizedOptions {
			if !slices.Contains(neg.Options, o) {
				neg.Options = append(neg.Options, o)
			}
		}
	}
	if !neg.NeedsAnswer() {
		return consumed, nil
	}
	c.logDebug("protocol negotiated", "requested", fmt.Sprintf("3.%d", neg.Requested), "spoken", fmt.Sprintf("3.%d", neg.Minor), "unrecognized", neg.Options)
	return consumed, c.writeBackend(neg.Answer())
}

// relayAuthRequest forwards one Authentication message and, for those that
// expect one, the client's answer.
func (c *conn) relayAuthRequest(frame, body []byte) error {
	if len(body) < 4 {
		return &Error{Code: CodeBackendProtocol, Err: errors.New("short authentication message")}
	}
	expectAnswer := true
	switch t := binary.BigEndian.Uint32(body); t {
	case authOK, authSASLFinal:
		expectAnswer = false
	case authCleartextPassword, authMD5Password, authSASLContinue:
	case authSASL:
		if c.channelBindingMatches() {
			break // the client can bind to the upstream's certificate itself
		}
		var err error
		c.hidPlus = true
		if frame, err = withoutChannelBinding(body); err != nil {
			c.writeFatal(pgCodeProtocolViolation, "pgequiv: "+err.Error())
			return &Error{Code: CodeUnsupportedAuth, Err: err}
		}
	default:
		err := fmt.Errorf("authentication request type %d cannot be relayed", t)
		c.writeFatal(pgCodeProtocolViolation, "pgequiv: "+err.Error())
		return &Error{Code: CodeUnsupportedAuth, Err: err}
	}
	if _, err := c.clW.Write(frame); err != nil {
		return err
	}
	if !expectAnswer {
		return nil
	}
	if err := c.clW.Flush(); err != nil {
		return err
	}
	answer, err := c.clR.Next()
	if err != nil {
		return classify(err, CodeClientRead, CodeClientProtocol)
	}
	if answer[0] != protocol.TypePassword {
		err := fmt.Errorf("expected a password message, got %q", answer[0])
		c.writeViolation(err)
		return &Error{Code: CodeClientProtocol, Err: err}
	}
	if _, err := c.upW.Write(answer); err != nil {
		return err
	}
	return c.upW.Flush()
}

// channelBindingMatches reports whether SCRAM channel binding
// (tls-server-end-point, a hash of the server certificate) computed by the
// client against the proxy gives the same data the upstream expects: both
// legs are TLS and the proxy presents the upstream's own certificate.
func (c *conn) channelBindingMatches() bool {
	up, ok := c.upstream.(*tls.Conn)
	if !ok || c.opts.ClientTLS == nil || len(c.opts.ClientTLS.Certificates) == 0 {
		return false
	}
	if _, ok := c.client.(*tls.Conn); !ok {
		return false
	}
	peer := up.ConnectionState().PeerCertificates
	own := c.opts.ClientTLS.Certificates[0].Certificate
	return len(peer) > 0 && len(own) > 0 && bytes.Equal(peer[0].Raw, own[0])
}

// channelBindingHintText explains the failure of a client that could bind
// the channel (libpq's default channel_binding=prefer on TLS) once the
// proxy hid the -PLUS mechanisms.
const channelBindingHintText = "pgequiv terminates TLS, so SCRAM channel binding cannot pass through it: " +
	"the client's TLS channel ends at pgequiv, not at the server. Connect with channel_binding=disable, " +
	"or give pgequiv the server's own certificate and key (tls.cert, tls.key) so that the binding verifies, " +
	"or use plain TCP on one leg (upstream.tls_mode: disable on a trusted network)."

// channelBindingHint adds channelBindingHintText to the upstream's
// protocol-violation error when the proxy hid the -PLUS mechanisms from a
// client on TLS to an upstream on TLS: the client then answers with the
// gs2 flag "y" (it could bind, it thinks the server cannot), which the
// server rightly refuses as a downgrade. It returns the re-encoded frame.
func (c *conn) channelBindingHint(e *pgproto3.ErrorResponse) ([]byte, bool) {
	// PostgreSQL reports the downgrade as 28000 (15) or 08P01; a wrong
	// password is 28P01 and gets no hint.
	if !c.hidPlus || e.Code != pgCodeProtocolViolation && e.Code != pgCodeInvalidAuthSpec || e.Hint != "" {
		return nil, false
	}
	if _, ok := c.client.(*tls.Conn); !ok {
		return nil, false
	}
	if _, ok := c.upstream.(*tls.Conn); !ok {
		return nil, false
	}
	e.Hint = channelBindingHintText
	frame, err := e.Encode(nil)
	if err != nil {
		return nil, false
	}
	c.logWarn("SCRAM channel binding failed through the proxy: the client connected with TLS and channel binding "+
		"(libpq's channel_binding=prefer); it must use channel_binding=disable, or pgequiv must present the server's certificate",
		"upstream_error", e.Message)
	return frame, true
}

// withoutChannelBinding re-encodes an AuthenticationSASL body without the
// -PLUS mechanisms: channel binding ties SCRAM to one TLS channel, and the
// client's channel (to the proxy) is not the upstream's.
//
// Limitation: a client on TLS that supports channel binding then answers
// with the gs2 flag "y" ("I could bind, the server cannot"), which a TLS
// upstream rightly rejects as a downgrade; the flag is covered by the SCRAM
// proof, so the proxy cannot change it. Such clients must use
// channel_binding=disable, or the proxy must present the upstream's
// certificate (see channelBindingMatches), or one leg must be plain.
func withoutChannelBinding(body []byte) ([]byte, error) {
	var m pgproto3.AuthenticationSASL
	if err := m.Decode(body); err != nil {
		return nil, err
	}
	mechs := m.AuthMechanisms[:0]
	for _, mech := range m.AuthMechanisms {
		if !strings.HasSuffix(mech, "-PLUS") {
			mechs = append(mechs, mech)
		}
	}
	if len(mechs) == 0 {
		return nil, errors.New("upstream offers only SASL mechanisms with channel binding")
	}
	m.AuthMechanisms = mechs
	return m.Encode(nil)
}
