package proxy

import (
	"context"

	"github.com/jackc/pgx/v5/pgproto3"
)

// QueryKind tells which message carried an observed statement.
type QueryKind uint8

const (
	// KindQuery is a simple-protocol Query message (may hold several
	// statements).
	KindQuery QueryKind = iota + 1
	// KindParse is an extended-protocol Parse message.
	KindParse
)

// Session describes the client connection a query arrives on. It is fixed
// after startup.
type Session struct {
	ConnID          uint64
	User            string
	Database        string
	ApplicationName string
}

// QueryEvent is one statement text sent by a client.
type QueryEvent struct {
	Kind QueryKind
	// Statement is the prepared statement name for KindParse (empty for the
	// unnamed statement); nil for KindQuery. Valid only during the call.
	Statement []byte
	// SQL is the statement text. Valid only during the call.
	SQL     []byte
	Session *Session
}

// Verdict is a QueryObserver's answer. The zero Verdict forwards the
// statement unchanged.
type Verdict struct {
	// Notice, if set, is sent to the client just before the ReadyForQuery
	// that ends the statement's batch. Its Severity defaults to NOTICE.
	Notice *pgproto3.NoticeResponse
	// Refuse, if set, keeps the statement from the upstream; the client
	// gets this ErrorResponse instead (Severity defaults to ERROR). For a
	// Parse, the rest of the batch up to Sync is discarded as PostgreSQL
	// does after an error. The upstream transaction is not aborted.
	Refuse *pgproto3.ErrorResponse
}

// QueryObserver sees the SQL text of every Query and Parse message before it
// is forwarded. It is called on the connection's client-reading goroutine,
// so it must be quick; it must not keep the slices in ev.
type QueryObserver interface {
	ObserveQuery(ctx context.Context, ev *QueryEvent) Verdict
}

// NopObserver forwards everything unchanged.
type NopObserver struct{}

// ObserveQuery implements QueryObserver.
func (NopObserver) ObserveQuery(context.Context, *QueryEvent) Verdict { return Verdict{} }
