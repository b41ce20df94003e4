// Package judging decides what the proxy does with a tagged query; the
// relay (package proxy) only forwards. It holds the judging policy the
// relay and database-free mode share: how a reference with placeholders
// bound from the candidate's constants is judged (JudgeBound), with the
// tag parser (proxy/tag) only reading tags and the judge pool
// (proxy/judgepool) the one place that guards and bounds judgements.
//
// Judging is the observer that judges tagged queries (annotate, log or
// enforce mode; see docs/proxy.md), with its per-connection state (kept in
// proxy.Session.State), verdict file and statistics. It reaches the relay
// only through the proxy's observer interfaces (QueryObserver,
// BindObserver, StatementFilter, SessionTracker) and the admin console
// through proxy.JudgingView: this package imports proxy, never the other
// way, and cmd/pgequiv wires the two together.
package judging
