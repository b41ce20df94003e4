package dbfree

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy/judgepool"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// Options configures a Server. They are copied when a connection starts;
// Server.Reload changes them for later connections.
type Options struct {
	// Schema is what queries are judged against; required.
	Schema *catalog.Schema
	// Judge holds the judge's policies.
	Judge equivalence.Options
	// Catalog resolves pgequiv_ref_id tags and fingerprint matches; may be
	// nil.
	Catalog *tag.Catalog
	// Password, if set, is required from every client (SCRAM-SHA-256);
	// empty means trust.
	Password string
	// ClientTLS, if set, is offered to clients that send SSLRequest.
	ClientTLS *tls.Config
	// MaxMessageSize bounds each client message; default 64 MiB.
	MaxMessageSize int
	// StartupTimeout bounds startup and authentication; default 60s.
	StartupTimeout time.Duration
	// VerdictTimeout bounds one judgement; default 2s.
	VerdictTimeout time.Duration
	// MaxClientConn bounds the connections served at once, startup
	// included; default DefaultMaxClientConn. A client over the limit gets
	// FATAL 53300 after its startup message.
	MaxClientConn int
	// ClientIdleTimeout ends, with FATAL 57P05, a connection whose client
	// sends nothing for this long after startup; default
	// DefaultClientIdleTimeout, negative for none.
	ClientIdleTimeout time.Duration
	// ClientReadTimeout bounds how long a message may take to arrive once
	// its first byte has; default DefaultClientReadTimeout, negative for
	// none.
	ClientReadTimeout time.Duration
	// MaxPreparedStatements bounds a connection's named prepared
	// statements, and separately its open portals; default
	// DefaultMaxPreparedStatements.
	MaxPreparedStatements int
	// MaxPreparedBytes bounds the bytes a connection's prepared statements
	// and portals hold (statement texts and bound parameters); default
	// DefaultMaxPreparedBytes.
	MaxPreparedBytes int
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Recorder, if set, runs every judgement so as to record it as relay
	// mode records a tagged query's: verdict and latency metrics,
	// pgequiv.judge spans, the admin console's SHOW VERDICTS and SHOW
	// STATS, the verdict file (pgequiv serve adapts judging.Judging).
	Recorder Recorder
	// AdminDatabase, with AdminServe, routes connections to that database
	// to the admin console: AdminServe gets the connection (TLS already
	// negotiated) and its StartupMessage, and closes it when done.
	AdminDatabase string
	AdminServe    func(net.Conn, *pgproto3.StartupMessage) error
	// Judger judges; read by New only (Reload keeps the server's). nil
	// means in-process (judgepool.Local); a judgepool.Pool isolates each
	// judgement in a worker process and bounds how many run at once. The
	// caller closes it after the server has shut down.
	Judger judgepool.Backend
}

// Judgement is one judgement the server runs, for a Recorder.
type Judgement struct {
	// ConnID is the connection's BackendKeyData process id.
	ConnID         uint64
	User, Database string
	// Ref is the reference (no Source for a pgequiv.check call).
	Ref tag.Reference
	// Candidate is the query judged, comment stripped; SQL the statement
	// as sent (a traceparent in its comment parents the span).
	Candidate, SQL string
	Options        equivalence.Options
}

// Recorder runs judge, bounded by ctx, and records the judgement.
type Recorder interface {
	JudgeRecorded(ctx context.Context, j Judgement, judge func(context.Context) (equivalence.Verdict, error)) (equivalence.Verdict, error)
}

// ServerVersion is the server_version reported to clients: clients such as
// psql pick their catalog queries by it, and pgequiv speaks the protocol
// and SQL grammar of PostgreSQL 16 (pg_query).
const ServerVersion = "16.0 (pgequiv database-free)"

// Defaults of the connection bounds (see Options and docs/database-free.md
// for why these values).
const (
	DefaultMaxClientConn         = config.DefaultMaxClientConn
	DefaultClientIdleTimeout     = config.DefaultClientIdleTimeout
	DefaultClientReadTimeout     = config.DefaultClientReadTimeout
	DefaultMaxPreparedStatements = config.DefaultMaxPreparedStatements
	DefaultMaxPreparedBytes      = config.DefaultMaxPreparedBytes
)

func (o Options) withDefaults() (Options, error) {
	if o.Schema == nil {
		return o, errors.New("dbfree: no schema")
	}
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = config.DefaultMaxMessageSize
	}
	if o.StartupTimeout <= 0 {
		o.StartupTimeout = config.DefaultStartupTimeout
	}
	if o.VerdictTimeout <= 0 {
		o.VerdictTimeout = config.DefaultVerdictTimeout
	}
	if o.MaxClientConn <= 0 {
		o.MaxClientConn = DefaultMaxClientConn
	}
	if o.ClientIdleTimeout == 0 {
		o.ClientIdleTimeout = DefaultClientIdleTimeout
	}
	if o.ClientReadTimeout == 0 {
		o.ClientReadTimeout = DefaultClientReadTimeout
	}
	if o.MaxPreparedStatements <= 0 {
		o.MaxPreparedStatements = DefaultMaxPreparedStatements
	}
	if o.MaxPreparedBytes <= 0 {
		o.MaxPreparedBytes = DefaultMaxPreparedBytes
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o, nil
}
