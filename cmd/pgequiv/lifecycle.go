package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync/atomic"

	"go.opentelemetry.io/otel/metric"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/judgepool"
	"github.com/pgequiv/pgequiv/proxy/judging"
)

// lifecycle is what one serve run shares between its two modes (the
// relay and database-free mode): the log and its level, the judge and the
// Judging that records what it judges, the running config that SHOW
// CONFIG shows, and the admin console's RELOAD requests. runServer drives
// it: signals, SIGHUP reload with the diff log, drain on shutdown, the
// stats line.
type lifecycle struct {
	env       serveEnv
	tel       *serveTelemetry
	level     *slog.LevelVar
	logger    *slog.Logger
	current   atomic.Pointer[config.Config]
	reloadReq chan chan error

	judger   judgepool.Backend // startJudging
	observer *judging.Judging  // startJudging
}

func newLifecycle(cfg *config.Config, env serveEnv, tel *serveTelemetry) *lifecycle {
	lc := &lifecycle{env: env, tel: tel, level: new(slog.LevelVar), reloadReq: make(chan chan error)}
	lc.level.Set(cfg.SlogLevel())
	lc.logger = slog.New(logHandler(cfg, env.stderr, lc.level))
	lc.current.Store(cfg)
	return lc
}

// startJudging starts the judge (worker processes under judge_isolation:
// process; it is also the bound on concurrent judgements), opens the
// verdict file, and makes the Judging, which lives across reloads keeping
// its counters, recent verdicts and caches. verdictLog is the Judging's
// verdict log (nil: none). stop waits for background judgements and
// closes the judge last.
func (lc *lifecycle) startJudging(cfg *config.Config, settings judging.JudgeSettings, verdictLog *slog.Logger) (stop func(), err error) {
	var closers []func()
	stop = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	if lc.judger, err = startJudge(cfg, lc.logger); err != nil {
		return nil, err
	}
	closers = append(closers, func() { lc.judger.Close() })
	var vfile *judging.VerdictFile
	if p := cfg.VerdictLogPath(); p != "" {
		if vfile, err = judging.OpenVerdictFile(p, int64(cfg.VerdictLogMaxSize)); err != nil {
			return nil, err
		}
		closers = append(closers, func() { vfile.Close() })
	}
	lc.observer, err = judging.NewJudging(settings, judging.JudgingOptions{
		Logger:         lc.logger,
		VerdictLog:     verdictLog,
		Judger:         lc.judger,
		VerdictFile:    vfile,
		TracerProvider: lc.tel.TracerProvider,
		MeterProvider:  lc.tel.MeterProvider,
	})
	if err != nil {
		return nil, err
	}
	closers = append(closers, lc.observer.Wait)
	return stop, nil
}

// console is the admin console's view of the run (after startJudging).
func (lc *lifecycle) console() *proxy.Console {
	return &proxy.Console{
		Judging: lc.observer,
		Config:  func() [][2]string { return configSettings(lc.current.Load()) },
		Reload:  consoleReload(lc.reloadReq),
	}
}

// server is the relay or the database-free server, as runServer runs it.
type server interface {
	Instrument(metric.MeterProvider) error
	Serve(net.Listener) error
	Shutdown(context.Context) error
}

// serverMode is one mode's part of runServer.
type serverMode struct {
	srv server
	// closed is what srv.Serve returns after Shutdown.
	closed error
	// clients counts the clients connected now, for the stats line.
	clients func() int
	// listening logs that the server listens on addr.
	listening func(addr net.Addr)
	// load parses and validates the whole new file, reading every file
	// it names, before applying any of it; it returns the new config.
	load func() (*config.Config, error)
	// restartWarn, if set, warns about what a reload from old to next
	// cannot apply without a restart, beyond what both modes warn about.
	restartWarn func(old, next *config.Config)
}

// runServer listens on the config's address and serves m.srv until ctx
// ends (then drains, waiting up to shutdown_timeout for clients) or Serve
// fails, reloading on SIGHUP (env.reload) and on the console's RELOAD.
func (lc *lifecycle) runServer(ctx context.Context, m serverMode) error {
	if err := m.srv.Instrument(lc.tel.MeterProvider); err != nil {
		return fmt.Errorf("serve: metrics: %w", err)
	}
	ln, err := net.Listen("tcp", lc.current.Load().Listen)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	m.listening(ln.Addr())
	if lc.env.listening != nil {
		lc.env.listening(ln.Addr())
	}
	served := make(chan error, 1)
	go func() { served <- m.srv.Serve(ln) }()
	statsCtx, stopStats := context.WithCancel(ctx)
	statsDone := startStatsLog(statsCtx, lc.logger, lc.env.statsTick, lc.env.statsLogged, lc.observer.Stats, m.clients)
	defer func() { stopStats(); <-statsDone }()

	reload := lc.reloader(ctx, m)
	for {
		select {
		case err := <-served:
			return fmt.Errorf("serve: %w", err)
		case <-lc.env.reload:
			_ = reload()
		case res := <-lc.reloadReq:
			res <- reload()
		case <-ctx.Done():
			return drain(lc.logger, m.srv, served, lc.current.Load().ShutdownTimeout, m.closed)
		}
	}
}

// reloader returns the reload of m: on success it logs what changed and
// what needs a restart, and the new config becomes the running one; on
// failure the running config is kept. Both are counted.
func (lc *lifecycle) reloader(ctx context.Context, m serverMode) func() error {
	meter := lc.tel.MeterProvider.Meter("github.com/pgequiv/pgequiv/cmd/pgequiv")
	reloadOK, _ := meter.Int64Counter("pgequiv.config.reloads")
	reloadFailed, _ := meter.Int64Counter("pgequiv.config.reload_failures")
	return func() error {
		cfg := lc.current.Load()
		next, err := m.load()
		if err != nil {
			reloadFailed.Add(ctx, 1)
			lc.logger.Error("config reload failed; keeping the running config", "err", err)
		} else {
			reloadOK.Add(ctx, 1)
			if m.restartWarn != nil {
				m.restartWarn(cfg, next)
			}
			if cfg.IsolationChanged(next) {
				lc.logger.Warn("judge_isolation, judge_workers and judge_memory_limit changes need a restart; the running judge is kept")
			}
			lc.tel.warnIfChanged(lc.logger, next, lc.env.getenv)
			lc.level.Set(next.SlogLevel())
			if cfg.Mode != next.Mode {
				logModeOff(lc.logger, next) // logs nothing in database-free mode
			}
			logReloaded(lc.logger, cfg, next)
			lc.current.Store(next)
		}
		if lc.env.reloaded != nil {
			lc.env.reloaded(err)
		}
		return err
	}
}
