package protocol

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/jackc/pgx/v5/pgproto3"
)

// MaxStartupPacketLen is the largest startup packet accepted, as in
// PostgreSQL's MAX_STARTUP_PACKET_LENGTH.
const MaxStartupPacketLen = 10000

// Request codes of the startup-phase packets that are not StartupMessages.
const (
	CancelRequestCode = 80877102
	SSLRequestCode    = 80877103
	GSSENCRequestCode = 80877104
)

// tlsRecordHandshake is the first byte of a TLS ClientHello, which a client
// using direct TLS (PostgreSQL 17 sslnegotiation=direct) sends instead of a
// length.
const tlsRecordHandshake = 0x16

// ReadStartup reads one startup-phase packet from r. It reads exactly the
// packet and nothing more, so r can be handed to a TLS handshake next.
// The result is a *pgproto3.SSLRequest, *pgproto3.GSSEncRequest,
// *pgproto3.StartupMessage or *pgproto3.CancelRequest.
func ReadStartup(r io.Reader) (pgproto3.FrontendMessage, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	if hdr[0] == tlsRecordHandshake {
		return nil, fmt.Errorf("protocol: direct TLS negotiation: %w", ErrUnsupported)
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n < 8 {
		return nil, &MalformedError{Reason: "startup packet length below 8"}
	}
	if n > MaxStartupPacketLen {
		return nil, &MessageTooLargeError{Size: int(n), Max: MaxStartupPacketLen}
	}
	packet := make([]byte, n)
	copy(packet, hdr[:])
	if _, err := io.ReadFull(r, packet[4:]); err != nil {
		return nil, unexpectedEOF(err)
	}
	return DecodeStartup(packet)
}

// DecodeStartup decodes a whole startup packet, length included.
func DecodeStartup(packet []byte) (pgproto3.FrontendMessage, error) {
	if len(packet) < 8 {
		return nil, &MalformedError{Reason: "startup packet shorter than 8 bytes"}
	}
	if int(binary.BigEndian.Uint32(packet)) != len(packet) {
		return nil, &MalformedError{Reason: "startup packet length does not match"}
	}
	body := packet[4:]
	code := binary.BigEndian.Uint32(body)
	switch code {
	case SSLRequestCode, GSSENCRequestCode:
		if len(body) != 4 {
			return nil, &MalformedError{Reason: "SSL/GSSENC request with a body"}
		}
		if code == SSLRequestCode {
			return &pgproto3.SSLRequest{}, nil
		}
		return &pgproto3.GSSEncRequest{}, nil
	case CancelRequestCode:
		msg := &pgproto3.CancelRequest{}
		if err := msg.Decode(body); err != nil {
			return nil, &MalformedError{Reason: "cancel request: " + err.Error()}
		}
		return msg, nil
	}
	if code>>16 != 3 {
		return nil, fmt.Errorf("protocol: protocol version %d.%d: %w", code>>16, code&0xffff, ErrUnsupported)
	}
	// pgproto3 decodes only 3.0 and 3.2; any 3.x is read as 3.0 and keeps
	// its version, so that the server can answer it with
	// NegotiateProtocolVersion as PostgreSQL does (see Negotiate).
	decodeAs := body
	if minor := code & 0xffff; minor != Minor30 && minor != Minor32 {
		decodeAs = binary.BigEndian.AppendUint32(nil, pgproto3.ProtocolVersion30)
		decodeAs = append(decodeAs, body[4:]...)
	}
	msg := &pgproto3.StartupMessage{}
	if err := msg.Decode(decodeAs); err != nil {
		return nil, &MalformedError{Reason: "startup message: " + err.Error()}
	}
	msg.ProtocolVersion = code
	if msg.Parameters["user"] == "" {
		return nil, &MalformedError{Reason: `startup message without "user"`}
	}
	return msg, nil
}

// AcceptConfig configures the server side of the startup phase.
type AcceptConfig struct {
	// TLS, if not nil, is used to answer SSLRequest with 'S'; otherwise
	// SSLRequest is answered with 'N'.
	TLS *tls.Config
}

// ErrTLSRequestAfterTLS is returned when a client sends SSLRequest or
// GSSENCRequest on an already encrypted connection.
var ErrTLSRequestAfterTLS = errors.New("protocol: encryption requested twice")

// Accept runs the server side of the startup phase on conn: it answers
// SSLRequest (TLS handshake if cfg.TLS is set, else 'N') and GSSENCRequest
// ('N') until a StartupMessage or CancelRequest arrives, and returns it with
// the connection to use from then on (a *tls.Conn after a handshake).
func Accept(ctx context.Context, conn net.Conn, cfg AcceptConfig) (net.Conn, pgproto3.FrontendMessage, error) {
	encrypted, gssRefused := false, false
	for {
		msg, err := ReadStartup(conn)
		if err != nil {
			return conn, nil, err
		}
		switch msg.(type) {
		case *pgproto3.SSLRequest:
			if encrypted {
				return conn, nil, ErrTLSRequestAfterTLS
			}
			if cfg.TLS == nil {
				if _, err := conn.Write([]byte{'N'}); err != nil {
					return conn, nil, err
				}
				continue
			}
			if _, err := conn.Write([]byte{'S'}); err != nil {
				return conn, nil, err
			}
			tlsConn := tls.Server(conn, cfg.TLS)
			if err := tlsConn.HandshakeContext(ctx); err != nil {
				return conn, nil, fmt.Errorf("protocol: client TLS handshake: %w", err)
			}
			conn, encrypted = tlsConn, true
		case *pgproto3.GSSEncRequest:
			if encrypted || gssRefused {
				return conn, nil, ErrTLSRequestAfterTLS
			}
			gssRefused = true
			if _, err := conn.Write([]byte{'N'}); err != nil {
				return conn, nil, err
			}
		default:
			return conn, msg, nil
		}
	}
}

// ErrTLSRefused is returned by RequestTLS when the server answers 'N' and
// TLS is required.
var ErrTLSRefused = errors.New("protocol: server does not support TLS")

// RequestTLS runs the client side of SSL negotiation on conn: it sends
// SSLRequest and, on 'S', performs a TLS handshake with cfg. On 'N' it
// returns conn unchanged, or ErrTLSRefused if required is set.
func RequestTLS(ctx context.Context, conn net.Conn, cfg *tls.Config, required bool) (net.Conn, error) {
	var req [8]byte
	binary.BigEndian.PutUint32(req[0:], 8)
	binary.BigEndian.PutUint32(req[4:], SSLRequestCode)
	if _, err := conn.Write(req[:]); err != nil {
		return conn, err
	}
	var resp [1]byte
	if _, err := io.ReadFull(conn, resp[:]); err != nil {
		return conn, err
	}
	switch resp[0] {
	case 'S':
		tlsConn := tls.Client(conn, cfg)
		if err := tlsConn.HandshakeContext(ctx); err != nil {
			return conn, fmt.Errorf("protocol: server TLS handshake: %w", err)
		}
		return tlsConn, nil
	case 'N':
		if required {
			return conn, ErrTLSRefused
		}
		return conn, nil
	default:
		return conn, &MalformedError{Reason: fmt.Sprintf("unexpected SSLRequest response %q", resp[0])}
	}
}
