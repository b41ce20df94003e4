// Package protocol is the thin layer of the PostgreSQL wire protocol (v3)
// that the proxy needs on top of github.com/jackc/pgx/v5/pgproto3:
//
//   - the startup phase (SSLRequest, GSSENCRequest, StartupMessage,
//     CancelRequest) in startup.go;
//   - a frame Reader that peeks at the 5-byte header of each message and
//     either forwards the raw frame or hands it out whole, with a maximum
//     message size (reader.go);
//   - zero-allocation views of the frontend messages the proxy inspects
//     (Query, Parse, Bind, Execute, Close, Sync), one per file.
//
// # Buffer ownership
//
// Slices returned by Reader.Next and the fields filled by the views' Decode
// methods alias the Reader's internal buffers. They are valid only until the
// next call on the same Reader; copy them to keep them. On any error the
// Reader's state is undefined and the stream must be abandoned.
package protocol
