package judgepool

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/gmn"
	gmnmodel "github.com/pgequiv/pgequiv/gmn/model"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// WorkerHooks are test-only hooks of the worker loop. Production workers
// (pgequiv judge-worker) pass nil: the hooks exist so that a test binary
// acting as its own worker can make a judgement fail in ways a real judge
// might (a fatal runtime error), and nothing else can set them.
type WorkerHooks struct {
	// BeforeJudge runs before each judgement, inside its panic guard.
	BeforeJudge func(reference, candidate string)
}

// maxWorkerSchemas bounds the schemas a worker keeps; the supervisor
// resets a worker's schemas when it would exceed this.
const maxWorkerSchemas = 64

// RunWorker is the worker process's main: it serves the supervisor on
// standard input and output and logs to standard error, which the
// supervisor copies into the proxy's log. It returns when standard input
// ends (the supervisor closed it, or died).
func RunWorker(hooks *WorkerHooks) error {
	out := os.Stdout
	// Standard output carries frames only; anything else printing there
	// would corrupt the stream, so it goes to the log instead.
	os.Stdout = os.Stderr
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil)).With("judge_worker_pid", os.Getpid())
	return ServeWorker(os.Stdin, out, logger, hooks)
}

// ServeWorker runs the worker loop on in and out: one init frame, then a
// request and its response at a time, until in ends.
func ServeWorker(in io.Reader, out io.Writer, logger *slog.Logger, hooks *WorkerHooks) error {
	dec := newDecoder(bufio.NewReaderSize(in, 64<<10))
	enc := newEncoder(out)
	var init initMsg
	if err := dec.recv(&init); err != nil {
		return fmt.Errorf("judge worker: reading init: %w", err)
	}
	if init.MemoryLimit > 0 {
		// A soft limit: the GC works harder near it. The supervisor kills
		// the worker if its resident size still exceeds the limit.
		debug.SetMemoryLimit(init.MemoryLimit)
		// Unbounded recursion then fails fast (a fatal stack overflow,
		// which costs one verdict) instead of growing toward the default
		// 1 GB stack first.
		debug.SetMaxStack(int(max(64<<20, init.MemoryLimit/4)))
	}
	judger, err := equivalence.NewJudger(init.Judger)
	if err != nil {
		return fmt.Errorf("judge worker: %w", err)
	}
	if err := enc.send(helloMsg{PID: os.Getpid()}); err != nil {
		return err
	}
	w := &workerState{judger: judger, log: logger, hooks: hooks, schemas: map[string]*catalog.Schema{}}
	for {
		var req request
		if err := dec.recv(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("judge worker: %w", err)
		}
		resp := w.serve(&req)
		resp.ID = req.ID
		resp.Stats = judger.Stats()
		if err := enc.send(resp); err != nil {
			return err
		}
	}
}

type workerState struct {
	judger  *equivalence.Judger
	log     *slog.Logger
	hooks   *WorkerHooks
	schemas map[string]*catalog.Schema
}

func (w *workerState) serve(req *request) response {
	if req.ResetSchemas {
		clear(w.schemas)
	}
	if req.Schema != nil {
		if len(w.schemas) >= maxWorkerSchemas {
			clear(w.schemas)
		}
		w.schemas[req.SchemaKey] = req.Schema
	}
	s := w.schemas[req.SchemaKey]
	if s == nil {
		return response{Kind: errProtocol, Err: "judge worker: schema " + req.SchemaKey + " was never sent"}
	}
	opts := equivalence.Options{
		ColumnOrder: req.Options.ColumnOrder, TrustForeignKeys: req.Options.TrustForeignKeys,
		AcceptAssumptions: req.Options.AcceptAssumptions, LikelyThreshold: req.Options.LikelyThreshold,
		MaxQueryBytes: req.Options.MaxQueryBytes, Refute: req.Options.Refute,
	}
	if req.Options.GMN {
		m, err := gmnmodel.Default()
		if err != nil {
			return response{Kind: errJudge, Err: "gmn: " + err.Error()}
		}
		opts.GMN = m
	}
	ctx, cancel := context.WithTimeout(context.Background(), req.Timeout)
	defer cancel()
	v, err := w.judge(ctx, s, req, opts)
	switch {
	case err == nil:
		return response{Verdict: v}
	case errors.Is(err, ErrPanicked):
		return response{Kind: errPanic, Err: err.Error()}
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		return response{Kind: errDeadline, Err: err.Error()}
	}
	return response{Kind: errJudge, Err: err.Error()}
}

// judge runs one judgement with a panic guard: a panic costs its verdict,
// not the worker and its cache.
func (w *workerState) judge(ctx context.Context, s *catalog.Schema, req *request, opts equivalence.Options) (v equivalence.Verdict, err error) {
	defer func() {
		if r := recover(); r != nil {
			w.log.Error("pgequiv: judge panicked", "panic", r, "stack", string(debug.Stack()))
			v, err = equivalence.Verdict{}, fmt.Errorf("%w: %v", ErrPanicked, r)
		}
	}()
	if h := w.hooks; h != nil && h.BeforeJudge != nil {
		h.BeforeJudge(req.Reference, req.Candidate)
	}
	return w.judger.Judge(ctx, s, req.Reference, req.Candidate, opts)
}

// toWire converts opts for a worker; see wireOptions.
func toWire(opts equivalence.Options) (wireOptions, error) {
	w := wireOptions{
		ColumnOrder: opts.ColumnOrder, TrustForeignKeys: opts.TrustForeignKeys,
		AcceptAssumptions: opts.AcceptAssumptions, LikelyThreshold: opts.LikelyThreshold,
		MaxQueryBytes: opts.MaxQueryBytes, Refute: opts.Refute,
	}
	if opts.Combiner != nil {
		return w, errors.New("judgepool: a custom score combiner cannot be sent to a judge worker")
	}
	if opts.Adviser != nil {
		return w, errors.New("judgepool: an adviser (llm_judge) cannot be sent to a judge worker; use judge_isolation: none")
	}
	if opts.GMN != nil {
		if !isDefaultGMN(opts.GMN) {
			return w, errors.New("judgepool: judge workers use the shipped GMN model only")
		}
		w.GMN = true
	}
	return w, nil
}

func isDefaultGMN(m *gmn.Model) bool {
	d, err := gmnmodel.Default()
	return err == nil && d == m
}

// budgetSlack is how far past its deadline a worker may answer before it
// is killed: 10% of the budget plus 20 ms.
func budgetSlack(budget time.Duration) time.Duration {
	return budget/10 + 20*time.Millisecond
}
