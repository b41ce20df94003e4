package protocol

import (
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
)

// Protocol minor versions (of major version 3) that pgequiv speaks: 3.0
// and 3.2 (whose only change is a BackendKeyData secret of up to 256
// bytes). 3.1 was never used by PostgreSQL.
const (
	Minor30     = 0
	Minor32     = 2
	NewestMinor = Minor32
)

// Negotiation is what a StartupMessage asks for beyond protocol 3.0, as
// PostgreSQL reads it: the minor version requested and the protocol
// options (parameters named _pq_.*) it sent.
type Negotiation struct {
	// Requested is the client's minor version; Minor the one spoken.
	Requested, Minor uint32
	// Options are the _pq_.* parameters, sorted; pgequiv knows none.
	Options []string
}

// Negotiate reads m's version and protocol options. The minor spoken is
// the newest one pgequiv speaks that is not above the one requested (3.0
// for 3.1, 3.2 for 3.2 and later).
func Negotiate(m *pgproto3.StartupMessage) Negotiation {
	n := Negotiation{Requested: m.ProtocolVersion & 0xffff}
	switch {
	case n.Requested >= Minor32:
		n.Minor = Minor32
	default:
		n.Minor = Minor30
	}
	for k := range m.Parameters {
		if strings.HasPrefix(k, "_pq_.") {
			n.Options = append(n.Options, k)
		}
	}
	slices.Sort(n.Options)
	return n
}

// NeedsAnswer reports whether PostgreSQL would answer the startup with
// NegotiateProtocolVersion: a minor version it does not speak, or
// protocol options it does not know.
func (n Negotiation) NeedsAnswer() bool {
	return n.Minor != n.Requested || len(n.Options) > 0
}

// Answer is the NegotiateProtocolVersion to send the client. Its version
// field holds the whole version (3<<16 | minor), as every PostgreSQL
// server sends it and libpq 18 reads it, though the protocol docs call it
// the newest minor version: a bare minor reads as a version below 3.0.
func (n Negotiation) Answer() *pgproto3.NegotiateProtocolVersion {
	return &pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: 3<<16 | n.Minor, UnrecognizedOptions: n.Options}
}

// AnsweredMinor is the minor version of a server's
// NegotiateProtocolVersion: PostgreSQL sends the whole version
// (3<<16 | minor); a bare minor is read as one.
func AnsweredMinor(m *pgproto3.NegotiateProtocolVersion) uint32 {
	if m.NewestMinorProtocol>>16 == 3 {
		return m.NewestMinorProtocol & 0xffff
	}
	return m.NewestMinorProtocol
}

// Forwarded returns m as sent on to a PostgreSQL server: the minor version
// spoken and no protocol options (the server must not switch on an option
// the proxy between would not understand).
func (n Negotiation) Forwarded(m *pgproto3.StartupMessage) *pgproto3.StartupMessage {
	if !n.NeedsAnswer() {
		return m
	}
	fw := &pgproto3.StartupMessage{ProtocolVersion: 3<<16 | n.Minor, Parameters: make(map[string]string, len(m.Parameters))}
	for k, v := range m.Parameters {
		if !strings.HasPrefix(k, "_pq_.") {
			fw.Parameters[k] = v
		}
	}
	return fw
}
