// Package dbfree is pgequiv's database-free mode ("upstream: none"): a
// PostgreSQL wire-protocol endpoint with no server behind it, which judges
// queries against a schema loaded from DDL.
//
// Any PostgreSQL client can connect (protocol 3.0 and 3.2, TLS if
// configured, trust or SCRAM-SHA-256 with a configured password) and use the
// simple or extended query protocol. Three kinds of statement are answered:
//
//   - SELECT * FROM pgequiv.check('<reference>', '<candidate>') returns one
//     row (label text, score float8, assumptions text, rules text,
//     differences text). The arguments are string literals or parameters
//     ($1, $2); a target list may name some of the columns instead of *.
//   - A query tagged with a sqlcommenter comment /*pgequiv_ref='...'*/ (or
//     pgequiv_ref_id with a catalog, or after SET pgequiv.reference) returns
//     that same row for the tagged query judged against its reference,
//     instead of data.
//   - SET/RESET pgequiv.reference and pgequiv.reference_id.
//
// Everything else gets an ErrorResponse (SQLSTATE 0A000) and the
// connection keeps serving. Lists are text: assumptions and differences
// joined with "; ", rules with ", "; empty when there are none.
package dbfree
