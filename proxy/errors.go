package proxy

import (
	"errors"
	"fmt"
)

// ErrorCode classifies why a proxied connection ended.
type ErrorCode int

// Error codes; keep String in sync.
const (
	// CodeNone is the zero value and never used in an Error.
	CodeNone ErrorCode = iota
	// CodeClientRead: reading from the client failed (including EOF).
	CodeClientRead
	// CodeClientWrite: writing to the client failed.
	CodeClientWrite
	// CodeClientProtocol: the client broke the wire protocol (malformed or
	// oversized message, bad startup packet).
	CodeClientProtocol
	// CodeBackendDial: the upstream could not be reached or TLS to it failed.
	CodeBackendDial
	// CodeBackendRead: reading from the upstream failed.
	CodeBackendRead
	// CodeBackendWrite: writing to the upstream failed.
	CodeBackendWrite
	// CodeBackendProtocol: the upstream sent something the proxy cannot relay.
	CodeBackendProtocol
	// CodeAuthFailed: the upstream refused the client during startup.
	CodeAuthFailed
	// CodeUnsupportedAuth: the upstream asked for an authentication method
	// the proxy cannot relay (GSS, SSPI, channel binding only).
	CodeUnsupportedAuth
	// CodeShutdown: the proxy is shutting down.
	CodeShutdown
	// CodeTooManyClients: the proxy already served MaxClientConn
	// connections.
	CodeTooManyClients
)

func (c ErrorCode) String() string {
	switch c {
	case CodeNone:
		return "none"
	case CodeClientRead:
		return "client_read"
	case CodeClientWrite:
		return "client_write"
	case CodeClientProtocol:
		return "client_protocol"
	case CodeBackendDial:
		return "backend_dial"
	case CodeBackendRead:
		return "backend_read"
	case CodeBackendWrite:
		return "backend_write"
	case CodeBackendProtocol:
		return "backend_protocol"
	case CodeAuthFailed:
		return "auth_failed"
	case CodeUnsupportedAuth:
		return "unsupported_auth"
	case CodeShutdown:
		return "shutdown"
	case CodeTooManyClients:
		return "too_many_clients"
	}
	return fmt.Sprintf("ErrorCode(%d)", int(c))
}

// Error is a classified proxy error.
type Error struct {
	Code ErrorCode
	Err  error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return "proxy: " + e.Code.String()
	}
	return fmt.Sprintf("proxy: %s: %v", e.Code, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

func newErrorf(code ErrorCode, format string, args ...any) *Error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// CodeOf returns the code of the first *Error in err's chain, or CodeNone.
func CodeOf(err error) ErrorCode {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeNone
}

// ErrServerClosed is returned by Serve after Shutdown or Close.
var ErrServerClosed = errors.New("proxy: server closed")

// IsClientGone reports whether err means the client went away (closed its
// connection or failed a read/write); such ends are normal and logged at
// debug level.
func IsClientGone(err error) bool {
	switch CodeOf(err) {
	case CodeClientRead, CodeClientWrite:
		return true
	}
	return false
}
