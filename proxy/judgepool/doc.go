// Package judgepool isolates the equivalence judge from the proxy: judgements
// run in a supervised pool of worker processes, so that whatever one
// judgement does — a Go fatal error (stack overflow, out of memory,
// concurrent map writes), which recover cannot catch, an endless loop, or
// runaway memory — it costs that one verdict and never the proxy, its
// relayed connections or its other clients.
//
// # Design
//
// The proxy starts Options.Workers workers (judge_workers) by running its own
// binary with the hidden subcommand "pgequiv judge-worker" (RunWorker). Each
// worker talks to its supervisor over its standard input and output in
// length-prefixed frames (4-byte big-endian length, then a gob message;
// frames over MaxFrameSize are refused). After a handshake (init: memory
// limit and cache sizes; hello), each request carries the schema key (its
// fingerprint) — the schema itself only the first time that worker needs
// it —, the reference, the candidate, the judge options (policies, GMN on or
// off: workers use the shipped model) and the remaining budget. Each worker
// keeps its own equivalence.Judger cache; a request goes to the worker chosen
// by a hash of the reference text, whose cache likely holds the prepared
// reference, else to any idle worker, else it waits in line within its
// deadline. That queue is also what bounds concurrent judgements.
//
// Supervision: a worker that dies during a judgement costs that verdict
// (ErrWorkerDied) and is started again, with a growing pause if it fails to
// start. A worker that dies while idle (killed from outside, the OOM killer)
// is reaped and started again at once (Pool.watch); a judgement that gets a
// worker found dead before it read the request is judged once more on a
// live one, so the death costs no verdict. A worker that has not answered by the deadline plus 10% + 20 ms is
// killed and restarted; the verdict is a timeout (wrapping
// context.DeadlineExceeded), so the time budget holds even if the judge
// does not. Each worker sets debug.SetMemoryLimit, and the supervisor reads
// a busy worker's resident size (/proc/PID/statm, Linux) every
// Options.PollInterval and kills it above Options.MemoryLimit
// (judge_memory_limit; ErrMemoryLimit). A panic inside a worker is recovered
// there (ErrPanicked). Restarts, deaths, kills and panics are logged and
// counted (otel counters pgequiv.judge.worker.* and pgequiv.judge.panics;
// Supervision for the admin console). Workers' standard error goes to the
// proxy's log. Close drains: judgements in flight end, workers exit, and none
// is left behind.
//
// Local is the in-process alternative (judge_isolation: none), with the same
// panic guard and concurrency bound but no protection from fatal errors.
package judgepool
