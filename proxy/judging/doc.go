// Package judging decides what the proxy does with a tagged query; the
// relay (package proxy) only forwards. It holds the judging policy the
// relay and database-free mode share: how a reference with placeholders
// bound from the candidate's constants is judged (JudgeBound), with the
// tag parser (proxy/tag) only reading tags and the judge pool
// (proxy/judgepool) the one place that guards and bounds judgements.
//
// The judging observer (proxy.Judging, its per-connection state
// proxy.Session.State, verdict file and statistics) is to follow here
// from package proxy (issue 21); it already reaches the relay only
// through the proxy's observer interfaces (QueryObserver, BindObserver,
// StatementFilter, SessionTracker).
package judging
