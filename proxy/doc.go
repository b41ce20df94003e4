// Package proxy is pgequiv's transparent PostgreSQL wire-protocol relay.
//
// A Server accepts client connections, runs the startup phase (TLS to the
// client if configured), dials the upstream PostgreSQL server (TLS mode
// disable, prefer, require or verify-full), and relays authentication
// unchanged in both directions (cleartext, MD5 and SCRAM-SHA-256; channel
// binding is not offered because the client's TLS channel is not the
// upstream's). The client receives the proxy's own BackendKeyData, which is
// mapped to the upstream's so a CancelRequest sent to the proxy reaches the
// right upstream backend.
//
// After authentication each connection runs two goroutines that copy raw
// frames (peek-and-forward). From the client only Query, Parse, Bind,
// Execute, Close and Sync are decoded, with zero-allocation views; Query and
// Parse are shown to a QueryObserver, which may add a NoticeResponse before
// the matching ReadyForQuery or refuse the statement with an ErrorResponse.
// Everything else, including large results, streams through fixed buffers.
//
// On Linux a connection with no TLS on either side starts instead on the
// fast relay: a few shared epoll event loops that frame both streams
// (headers only) and forward them, as PgBouncer does, without a goroutine
// per direction. The first client message that needs more (a statement the
// observer must see, per its StatementFilter; a message to log at debug
// level; a malformed or oversized frame) moves the connection to the
// goroutine relay for good, with the bytes the loop holds.
//
// The observer that judges tagged queries (annotate, log or enforce mode;
// see docs/proxy.md) is judging.Judging, in package proxy/judging, which
// imports this package; cmd/pgequiv wires the two together. A client connecting to the virtual
// database of AdminOptions gets the admin console instead of the upstream.
//
// # Buffer ownership
//
// QueryEvent.SQL and QueryEvent.Statement alias the connection's read
// buffer and are valid only during the ObserveQuery call.
package proxy
