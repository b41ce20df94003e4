package judgepool

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/pgequiv/pgequiv/cache"
	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Options configure a Pool.
type Options struct {
	// Workers is the number of worker processes; default runtime.NumCPU().
	Workers int
	// MemoryLimit bounds each worker's resident size in bytes; a worker
	// over it during a judgement is killed. Default 1 GiB.
	MemoryLimit int64
	// Command is the worker's argv; default this executable with the
	// hidden subcommand "judge-worker". Tests run their own binary.
	Command []string
	// Env is added to the proxy's environment for the workers.
	Env []string
	// Judger sizes each worker's cache.
	Judger equivalence.JudgerOptions
	// DefaultTimeout bounds judgements whose context has no deadline;
	// default 30s.
	DefaultTimeout time.Duration
	// PollInterval is how often a busy worker's resident size is read;
	// default 10ms.
	PollInterval time.Duration
	// Logger gets supervision events and the workers' standard error;
	// default slog.Default(). MeterProvider defaults to the otel global.
	Logger        *slog.Logger
	MeterProvider metric.MeterProvider
}

// DefaultMemoryLimit is the default Options.MemoryLimit.
const DefaultMemoryLimit = config.DefaultJudgeMemoryLimit

func (o Options) withDefaults() (Options, error) {
	if o.Workers <= 0 {
		o.Workers = runtime.NumCPU()
	}
	if o.MemoryLimit <= 0 {
		o.MemoryLimit = DefaultMemoryLimit
	}
	if len(o.Command) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return o, fmt.Errorf("judgepool: finding the executable to run workers: %w", err)
		}
		o.Command = []string{exe, "judge-worker"}
	}
	if o.DefaultTimeout <= 0 {
		o.DefaultTimeout = 30 * time.Second
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 10 * time.Millisecond
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MeterProvider == nil {
		o.MeterProvider = otel.GetMeterProvider()
	}
	return o, nil
}

// Pool judges in supervised worker processes (see the package comment).
type Pool struct {
	o    Options
	log  *slog.Logger
	seed maphash.Seed

	mu      sync.Mutex
	workers []*worker
	waiters []chan *worker // FIFO of judgements waiting for a worker
	closed  bool
	closing chan struct{}
	// inflight counts workers held by a judgement or a restart.
	inflight sync.WaitGroup

	nextID                                            atomic.Uint64
	restarts, deaths, deadlineKills, memKills, panics atomic.Uint64
	startFailures                                     atomic.Uint64
	m                                                 poolMetrics
}

// worker is one slot of the pool; its process changes on restarts.
type worker struct {
	idx  int
	idle bool  // under Pool.mu
	proc *proc // owned by the holder while not idle
	// stats are the last cache counters the process reported; under
	// Pool.mu.
	stats equivalence.JudgerStats
}

type poolMetrics struct {
	restarts, deaths, kills, panics, startFailures metric.Int64Counter
}

// New starts the workers and returns when all are ready.
func New(o Options) (*Pool, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	p := &Pool{o: o, log: o.Logger, seed: maphash.MakeSeed(), closing: make(chan struct{})}
	meter := o.MeterProvider.Meter(meterScope)
	for _, c := range []struct {
		dst  *metric.Int64Counter
		name string
		desc string
	}{
		{&p.m.restarts, "pgequiv.judge.worker.restarts", "Judge worker processes started again after a death or a kill"},
		{&p.m.deaths, "pgequiv.judge.worker.deaths", "Judge worker processes that ended during a judgement (fatal error, killed from outside)"},
		{&p.m.kills, "pgequiv.judge.worker.kills", "Judge worker processes killed by the supervisor, by reason (deadline, memory)"},
		{&p.m.panics, "pgequiv.judge.panics", "Judgements that panicked (recovered; the verdict is an error)"},
		{&p.m.startFailures, "pgequiv.judge.worker.start_failures", "Judge worker starts that failed"},
	} {
		if *c.dst, err = meter.Int64Counter(c.name, metric.WithDescription(c.desc)); err != nil {
			return nil, err
		}
	}
	p.workers = make([]*worker, o.Workers)
	errs := make([]error, o.Workers)
	var wg sync.WaitGroup
	for i := range p.workers {
		p.workers[i] = &worker{idx: i, idle: true}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.workers[i].proc, errs[i] = p.startProc(i)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, w := range p.workers {
			if w.proc != nil {
				w.proc.stop(time.Second)
			}
		}
		return nil, err
	}
	for _, w := range p.workers {
		go p.watch(w, w.proc)
	}
	p.log.Info("judge workers started", "workers", o.Workers, "memory_limit", o.MemoryLimit)
	return p, nil
}

// Judge implements Backend: it runs the judgement on a worker, preferably
// the one that judged the same reference before (its cache holds the
// prepared reference), else any idle one, else it queues within ctx.
func (p *Pool) Judge(ctx context.Context, s *catalog.Schema, reference, candidate string, opts equivalence.Options) (equivalence.Verdict, error) {
	wopts, err := toWire(opts)
	if err != nil {
		return equivalence.Verdict{}, err
	}
	start := time.Now()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = start.Add(p.o.DefaultTimeout)
	}
	budget := deadline.Sub(start)
	hard := deadline.Add(budgetSlack(budget))
	pref := int(maphash.String(p.seed, reference) % uint64(len(p.workers)))
	var w *worker
	var req request
	// A worker found dead before it got the request (killed or OOM while
	// idle, its death not yet seen by watch) is no verdict of this
	// judgement's: it is reaped and restarted, and the judgement tries
	// once more on another (or the restarted) worker. A worker that dies
	// once it has the request is not retried: the request may be what
	// kills it.
	for attempt := 0; ; attempt++ {
		if w, err = p.acquire(ctx, pref); err != nil {
			return equivalence.Verdict{}, err
		}
		timeout := time.Until(deadline)
		if timeout <= 0 {
			p.release(w)
			return equivalence.Verdict{}, fmt.Errorf("waiting for a free judge worker: %w", context.DeadlineExceeded)
		}
		req = request{ID: p.nextID.Add(1), SchemaKey: s.Fingerprint(), Reference: reference, Candidate: candidate,
			Options: wopts, Timeout: timeout}
		pr := w.proc
		if pr.exited() {
			p.died(w, pr, "before a judgement")
			if attempt == 0 {
				continue
			}
			return equivalence.Verdict{}, fmt.Errorf("%w before the judgement (%v)", ErrWorkerDied, errString(pr.exitErr))
		}
		if !pr.schemas[req.SchemaKey] {
			if len(pr.schemas) >= maxWorkerSchemas {
				req.ResetSchemas = true
				clear(pr.schemas)
			}
			req.Schema = s
		}
		if err := pr.enc.send(req); err != nil {
			// The worker is gone (a broken pipe) or the request cannot be
			// encoded; either way the stream cannot be trusted. The
			// worker did not read the request: try once more.
			_ = pr.cmd.Process.Kill() // no-op for a dead one
			p.died(w, pr, "before a judgement (the request could not be sent: "+err.Error()+")")
			if attempt == 0 {
				continue
			}
			return equivalence.Verdict{}, fmt.Errorf("%w: %v", ErrWorkerDied, err)
		}
		pr.schemas[req.SchemaKey] = true
		break
	}
	type result struct {
		v   equivalence.Verdict
		err error
	}
	res := make(chan result, 1)
	go func() {
		v, err := p.await(w, req.ID, hard)
		res <- result{v, err}
	}()
	select {
	case r := <-res:
		return r.v, r.err
	case <-ctx.Done():
		// The caller's deadline (or cancellation) is the answer's: the
		// proxy answers then, not when the worker gives up. Waiting for
		// the worker's own timeout verdict, or its kill at the hard
		// deadline, put refusals up to 10% + 20 ms past the budget, more
		// under load. The worker is supervised to the end, and given back
		// or restarted, in the background (await).
		select {
		case r := <-res: // both ready: the answer wins
			return r.v, r.err
		default:
		}
		return equivalence.Verdict{}, fmt.Errorf("waiting for the judge worker: %w", ctx.Err())
	}
}

// await waits for w's answer to request id until hard, supervising the
// process, and gives w back (or to a restart).
func (p *Pool) await(w *worker, id uint64, hard time.Time) (equivalence.Verdict, error) {
	pr := w.proc
	kill := time.NewTimer(time.Until(hard))
	defer kill.Stop()
	poll := time.NewTicker(p.o.PollInterval)
	defer poll.Stop()
	for {
		select {
		case r := <-pr.resp:
			if r.ID != id {
				p.replace(w, "answered out of turn", fmt.Errorf("response %d to request %d", r.ID, id))
				return equivalence.Verdict{}, fmt.Errorf("%w: it answered out of turn", ErrWorkerDied)
			}
			p.mu.Lock()
			w.stats = r.Stats
			p.mu.Unlock()
			p.release(w)
			return p.result(r)
		case <-pr.done:
			select {
			case r := <-pr.resp:
				// It answered, then exited: the answer counts; the worker
				// is started again.
				pr.wait()
				p.log.Warn("judge worker exited after answering; restarting it", "worker", w.idx, "pid", pr.pid, "exit", errString(pr.exitErr))
				p.restart(w)
				if r.ID != id {
					return equivalence.Verdict{}, fmt.Errorf("%w: it answered out of turn", ErrWorkerDied)
				}
				return p.result(r)
			default:
			}
			pr.wait()
			p.deaths.Add(1)
			p.m.deaths.Add(context.Background(), 1)
			p.log.Error("judge worker died during a judgement; restarting it", "worker", w.idx, "pid", pr.pid,
				"exit", errString(pr.exitErr), "read", errString(pr.readErr))
			p.restart(w)
			return equivalence.Verdict{}, fmt.Errorf("%w (%v)", ErrWorkerDied, errString(pr.exitErr))
		case <-kill.C:
			p.deadlineKills.Add(1)
			p.m.kills.Add(context.Background(), 1, metric.WithAttributes(attribute.String("reason", "deadline")))
			p.replace(w, "missed its deadline", nil)
			return equivalence.Verdict{}, fmt.Errorf("judge worker killed: no verdict by the deadline plus 10%% + 20ms: %w", context.DeadlineExceeded)
		case <-poll.C:
			if rss := pr.rss(); rss > p.o.MemoryLimit {
				p.memKills.Add(1)
				p.m.kills.Add(context.Background(), 1, metric.WithAttributes(attribute.String("reason", "memory")))
				p.replace(w, "exceeded memory limit", fmt.Errorf("resident %d bytes, limit %d", rss, p.o.MemoryLimit))
				return equivalence.Verdict{}, fmt.Errorf("%w (%d MiB)", ErrMemoryLimit, p.o.MemoryLimit>>20)
			}
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// result turns a worker's response into the verdict or an error that
// errors.Is recognises.
func (p *Pool) result(r response) (equivalence.Verdict, error) {
	switch r.Kind {
	case errNone:
		return r.Verdict, nil
	case errDeadline:
		return equivalence.Verdict{}, fmt.Errorf("%s: %w", r.Err, context.DeadlineExceeded)
	case errCanceled:
		return equivalence.Verdict{}, fmt.Errorf("%s: %w", r.Err, context.Canceled)
	case errPanic:
		p.panics.Add(1)
		p.m.panics.Add(context.Background(), 1)
		return equivalence.Verdict{}, fmt.Errorf("%w (in a judge worker)", ErrPanicked)
	}
	return equivalence.Verdict{}, errors.New(r.Err)
}

// died reaps w's process pr, which ended outside a judgement (killed
// from outside, out of memory), and restarts it. The caller holds w.
func (p *Pool) died(w *worker, pr *proc, when string) {
	pr.wait()
	p.deaths.Add(1)
	p.m.deaths.Add(context.Background(), 1)
	p.log.Error("judge worker died "+when+"; restarting it", "worker", w.idx, "pid", pr.pid,
		"exit", errString(pr.exitErr), "read", errString(pr.readErr))
	p.restart(w)
}

// watch follows w's process pr from its start: if it ends while w is
// idle, watch takes w, reaps the process (which would otherwise stay a
// zombie) and starts another. While w is held, its holder (a judgement,
// a restart, Close) deals with a death.
func (p *Pool) watch(w *worker, pr *proc) {
	select {
	case <-pr.done:
	case <-p.closing:
		return
	}
	p.mu.Lock()
	if p.closed || w.proc != pr || !w.idle {
		p.mu.Unlock()
		return
	}
	w.idle = false
	p.inflight.Add(1)
	p.mu.Unlock()
	p.died(w, pr, "while idle")
}

// replace kills w's process and restarts it.
func (p *Pool) replace(w *worker, why string, err error) {
	p.log.Warn("killing judge worker", "worker", w.idx, "pid", w.proc.pid, "reason", why, "err", errString(err))
	w.proc.kill()
	p.restart(w)
}

// restart starts a new process for w in the background and then gives w
// back. Failed starts are retried with a growing pause.
func (p *Pool) restart(w *worker) {
	p.mu.Lock()
	w.proc = nil
	p.mu.Unlock()
	go func() {
		backoff := 50 * time.Millisecond
		for {
			select {
			case <-p.closing:
				p.release(w)
				return
			default:
			}
			pr, err := p.startProc(w.idx)
			if err == nil {
				p.mu.Lock()
				w.proc = pr
				p.mu.Unlock()
				go p.watch(w, pr)
				p.restarts.Add(1)
				p.m.restarts.Add(context.Background(), 1)
				p.log.Info("judge worker restarted", "worker", w.idx, "pid", pr.pid)
				p.release(w)
				return
			}
			p.startFailures.Add(1)
			p.m.startFailures.Add(context.Background(), 1)
			p.log.Error("judge worker failed to start; retrying", "worker", w.idx, "err", err, "retry_in", backoff)
			t := time.NewTimer(backoff)
			select {
			case <-t.C:
			case <-p.closing:
				t.Stop()
			}
			backoff = min(2*backoff, 10*time.Second)
		}
	}()
}

// acquire takes the preferred worker if idle, else any idle one, else
// waits in line until ctx is done.
func (p *Pool) acquire(ctx context.Context, pref int) (*worker, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	n := len(p.workers)
	for i := range n {
		if w := p.workers[(pref+i)%n]; w.idle && w.proc != nil {
			w.idle = false
			p.inflight.Add(1)
			p.mu.Unlock()
			return w, nil
		}
	}
	ch := make(chan *worker, 1)
	p.waiters = append(p.waiters, ch)
	p.mu.Unlock()
	select {
	case w := <-ch:
		if w == nil {
			return nil, ErrClosed
		}
		return w, nil
	case <-ctx.Done():
	}
	p.mu.Lock()
	for i, c := range p.waiters {
		if c == ch {
			p.waiters = append(p.waiters[:i], p.waiters[i+1:]...)
			p.mu.Unlock()
			return nil, fmt.Errorf("waiting for a free judge worker: %w", ctx.Err())
		}
	}
	p.mu.Unlock()
	if w := <-ch; w != nil { // handed over just as ctx ended
		p.release(w)
	}
	return nil, fmt.Errorf("waiting for a free judge worker: %w", ctx.Err())
}

// release gives w to the first waiting judgement, or marks it idle.
func (p *Pool) release(w *worker) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed && w.proc != nil && len(p.waiters) > 0 {
		ch := p.waiters[0]
		p.waiters = p.waiters[1:]
		ch <- w // the holder changes; inflight stays counted
		return
	}
	w.idle = true
	p.inflight.Done()
}

// Stats implements Backend: the workers' last reported cache counters,
// summed. A restarted worker starts from zero.
func (p *Pool) Stats() equivalence.JudgerStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	var st equivalence.JudgerStats
	for _, w := range p.workers {
		for _, c := range []struct{ dst, src *cache.Stats }{
			{&st.Queries, &w.stats.Queries}, {&st.Pairs, &w.stats.Pairs},
		} {
			c.dst.Hits += c.src.Hits
			c.dst.Misses += c.src.Misses
			c.dst.Evictions += c.src.Evictions
			c.dst.Rejected += c.src.Rejected
			c.dst.Entries += c.src.Entries
			c.dst.Bytes += c.src.Bytes
		}
	}
	return st
}

// Supervision implements Backend.
func (p *Pool) Supervision() SupervisionStats {
	return SupervisionStats{
		Workers: len(p.workers), Restarts: p.restarts.Load(), Deaths: p.deaths.Load(),
		DeadlineKills: p.deadlineKills.Load(), MemoryKills: p.memKills.Load(),
		StartFailures: p.startFailures.Load(), Panics: p.panics.Load(),
	}
}

// Close drains the pool: new judgements fail with ErrClosed, judgements
// in flight end (each within its hard deadline), then every worker is
// asked to exit and killed if it has not within a second. No worker
// process is left behind.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.closing)
	for _, ch := range p.waiters {
		ch <- nil
	}
	p.waiters = nil
	p.mu.Unlock()
	p.inflight.Wait()
	var wg sync.WaitGroup
	for _, w := range p.workers {
		if w.proc != nil {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.proc.stop(time.Second)
			}()
		}
	}
	wg.Wait()
	p.log.Info("judge workers stopped", "workers", len(p.workers))
	return nil
}
