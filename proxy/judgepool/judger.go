package judgepool

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Backend is the judging service the proxy judges with: a Pool of worker processes
// (judge_isolation: process) or Local, in-process (judge_isolation: none).
type Backend interface {
	// Judge judges candidate against reference on s within ctx.
	Judge(ctx context.Context, s *catalog.Schema, reference, candidate string, opts equivalence.Options) (equivalence.Verdict, error)
	// Stats are the judge cache counters, summed over workers.
	Stats() equivalence.JudgerStats
	// Supervision are the isolation counters.
	Supervision() SupervisionStats
	// Close stops the judge; a Pool stops its workers.
	Close() error
}

// Errors a Backend returns besides the judge's own.
var (
	// ErrPanicked reports a judgement that panicked; the panic is logged
	// and counted and costs only that verdict.
	ErrPanicked = errors.New("the judge failed unexpectedly")
	// ErrWorkerDied reports a worker process that ended during the
	// judgement (a Go fatal error such as a stack overflow or running out
	// of memory, or a kill from outside). The worker is restarted.
	ErrWorkerDied = errors.New("the judge worker died")
	// ErrMemoryLimit reports a worker killed for exceeding
	// judge_memory_limit during the judgement.
	ErrMemoryLimit = errors.New("the judge exceeded memory limit")
	// ErrClosed is returned after Close.
	ErrClosed = errors.New("judgepool: closed")
)

// SupervisionStats are the isolation counters, for the admin console.
type SupervisionStats struct {
	Workers       int    // worker processes configured (0: in-process)
	Restarts      uint64 // workers started again after a death or a kill
	Deaths        uint64 // workers that ended during a judgement
	DeadlineKills uint64 // workers killed for missing deadline + 10% + 20 ms
	MemoryKills   uint64 // workers killed for exceeding the memory limit
	StartFailures uint64 // worker starts that failed (retried with backoff)
	Panics        uint64 // judgements that panicked (recovered)
}

// JudgeFunc judges candidate against reference on s within ctx.
type JudgeFunc func(ctx context.Context, s *catalog.Schema, reference, candidate string, opts equivalence.Options) (equivalence.Verdict, error)

const meterScope = "github.com/pgequiv/pgequiv/proxy/judgepool"

// LocalOptions configure Local.
type LocalOptions struct {
	Judger equivalence.JudgerOptions
	// MaxConcurrent bounds judgements running at once; beyond it they
	// queue within their deadline. Default 2 × GOMAXPROCS. This is the
	// only bound on judging in the proxy: judging is CPU-bound, so beyond
	// a few per core judgements wait rather than slow each other down.
	MaxConcurrent int
	// Judge, if set, judges in place of an equivalence.Judger built from
	// Judger (tests: a judge that hangs or panics). It runs under Local's
	// panic guard and concurrency bound like the real one.
	Judge JudgeFunc
	// Logger defaults to slog.Default(); MeterProvider to the otel global.
	Logger        *slog.Logger
	MeterProvider metric.MeterProvider
}

// Local judges in the calling process with a panic guard. A Go fatal
// error still ends the process; use a Pool to survive one. Its guard and
// bound are the only ones on the judging path: callers (the proxy's
// Judging observer, database-free mode) rely on them.
type Local struct {
	j      *equivalence.Judger
	judge  JudgeFunc
	log    *slog.Logger
	sem    chan struct{}
	panics atomic.Uint64
	mPanic metric.Int64Counter
}

// NewLocal returns an in-process Backend.
func NewLocal(o LocalOptions) (*Local, error) {
	j, err := equivalence.NewJudger(o.Judger)
	if err != nil {
		return nil, err
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = 2 * runtime.GOMAXPROCS(0)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MeterProvider == nil {
		o.MeterProvider = otel.GetMeterProvider()
	}
	l := &Local{j: j, judge: o.Judge, log: o.Logger, sem: make(chan struct{}, o.MaxConcurrent)}
	if l.judge == nil {
		l.judge = j.Judge
	}
	if l.mPanic, err = o.MeterProvider.Meter(meterScope).Int64Counter("pgequiv.judge.panics",
		metric.WithDescription("Judgements that panicked (recovered; the verdict is an error)")); err != nil {
		return nil, err
	}
	return l, nil
}

// Judge implements Backend.
func (l *Local) Judge(ctx context.Context, s *catalog.Schema, reference, candidate string, opts equivalence.Options) (v equivalence.Verdict, err error) {
	select {
	case l.sem <- struct{}{}:
		defer func() { <-l.sem }()
	case <-ctx.Done():
		return v, fmt.Errorf("waiting for a free judge: %w", ctx.Err())
	}
	defer func() {
		if r := recover(); r != nil {
			l.panics.Add(1)
			l.mPanic.Add(context.Background(), 1)
			l.log.Error("pgequiv: judge panicked", "panic", r, "stack", string(debug.Stack()))
			v, err = equivalence.Verdict{}, fmt.Errorf("%w: %v", ErrPanicked, r)
		}
	}()
	return l.judge(ctx, s, reference, candidate, opts)
}

// Stats implements Backend.
func (l *Local) Stats() equivalence.JudgerStats { return l.j.Stats() }

// Supervision implements Backend: only panics apply in-process.
func (l *Local) Supervision() SupervisionStats { return SupervisionStats{Panics: l.panics.Load()} }

// Close implements Backend; there is nothing to stop.
func (l *Local) Close() error { return nil }
