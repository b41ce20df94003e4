package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/judging"
	"github.com/pgequiv/pgequiv/telemetry"
)

// runServe implements "pgequiv serve --config proxy.yaml": it runs the
// proxy until SIGINT or SIGTERM (then shuts down gracefully, waiting up to
// shutdown_timeout for clients) and reloads the config on SIGHUP.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, serveEnv{reload: hup, getenv: os.Getenv, stdout: stdout, stderr: stderr})
}

// serveEnv is what serve takes from the process; tests supply their own.
type serveEnv struct {
	reload <-chan os.Signal
	getenv func(string) string
	// stdout gets mode log's verdict lines (log.verdicts: stdout); nil
	// discards them. stderr gets the log.
	stdout, stderr io.Writer
	// listening, if set, is called with the bound address.
	listening func(net.Addr)
	// reloaded, if set, is called after each reload attempt.
	reloaded func(error)
	// telemetry, if set, is called with the installed telemetry.
	telemetry func(*telemetry.Telemetry)
	// statsTick, if set, replaces the stats summary's ticker, and
	// statsLogged is called after each summary line (statslog.go).
	statsTick   <-chan time.Time
	statsLogged func()
}

func serve(ctx context.Context, args []string, env serveEnv) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	path := fs.String("config", "proxy.yaml", "path of the proxy configuration file")
	profiles := addServeProfiles(fs) // serveprofile.go
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: pgequiv serve [--config proxy.yaml] [profiling flags]

Runs the proxy the configuration file describes: a relay to upstream.address
that judges tagged queries (mode: off|annotate|log|enforce), or, with
upstream: none, database-free mode. Every key is in docs/proxy.md.
SIGINT/SIGTERM drain and stop (within shutdown_timeout); SIGHUP reloads
after validating the whole file.`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve: unexpected arguments %q", fs.Args())
	}
	stopProfiles, err := profiles.start()
	defer func() {
		if perr := stopProfiles(); perr != nil {
			fmt.Fprintln(env.stderr, perr)
		}
	}()
	if err != nil {
		return err
	}

	l, err := loadConfig(*path, env.getenv)
	if err != nil {
		return err
	}
	cfg := l.cfg
	// Telemetry is installed before anything is instrumented and shut
	// down (flushed, within telemetry.shutdown_timeout) after everything
	// else has stopped.
	tel, err := startTelemetry(cfg, env)
	if err != nil {
		return err
	}
	defer tel.stop()
	if cfg.Upstream.None {
		return serveDatabaseFree(ctx, *path, cfg, env, tel)
	}
	level := new(slog.LevelVar)
	level.Set(cfg.SlogLevel())
	logger := slog.New(logHandler(cfg, env.stderr, level))
	verdicts, closeVerdicts, err := verdictSink(cfg, orDiscard(env.stdout), env.stderr)
	if err != nil {
		return err
	}
	defer closeVerdicts.Close()

	// The judge (worker processes under judge_isolation: process) is
	// closed last, after background judgements have ended.
	judger, err := startJudge(cfg, logger)
	if err != nil {
		return err
	}
	defer judger.Close()
	// One judging observer lives across reloads, keeping its counters,
	// recent verdicts and caches; reloads replace its settings.
	var vfile *judging.VerdictFile
	if p := cfg.VerdictLogPath(); p != "" {
		if vfile, err = judging.OpenVerdictFile(p, int64(cfg.VerdictLogMaxSize)); err != nil {
			return err
		}
		defer vfile.Close()
	}
	observer, err := judging.NewJudging(l.judge, judging.JudgingOptions{
		Logger:         logger,
		VerdictLog:     slog.New(slog.NewJSONHandler(verdicts, nil)),
		Judger:         judger,
		VerdictFile:    vfile,
		TracerProvider: tel.TracerProvider,
		MeterProvider:  tel.MeterProvider,
	})
	if err != nil {
		return err
	}
	defer observer.Wait()
	var current atomic.Pointer[config.Config]
	current.Store(cfg)
	reloadReq := make(chan chan error)
	console := &proxy.Console{
		Judging: observer,
		Config:  func() [][2]string { return configSettings(current.Load()) },
		Reload:  consoleReload(reloadReq),
	}
	wire := func(l *loaded) {
		l.opts.Logger = logger
		l.opts.Observer = observer
		l.opts.Admin = adminOptions(l.cfg, console)
	}
	wire(l)

	srv, err := proxy.New(l.opts)
	if err != nil {
		return err
	}
	if err := srv.Instrument(tel.MeterProvider); err != nil {
		return fmt.Errorf("serve: metrics: %w", err)
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	logger.Info("pgequiv proxy listening", "addr", ln.Addr().String(), "upstream", cfg.Upstream.Address,
		"tls_mode", cfg.Upstream.TLSMode, "mode", cfg.Mode, "admin_console", len(cfg.Admin.Users) > 0)
	logModeOff(logger, cfg)
	if env.listening != nil {
		env.listening(ln.Addr())
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	statsCtx, stopStats := context.WithCancel(ctx)
	statsDone := startStatsLog(statsCtx, logger, env.statsTick, env.statsLogged, observer.Stats, func() int { return len(srv.Clients()) })
	defer func() { stopStats(); <-statsDone }()

	meter := tel.MeterProvider.Meter("github.com/pgequiv/pgequiv/cmd/pgequiv")
	reloadOK, _ := meter.Int64Counter("pgequiv.config.reloads")
	reloadFailed, _ := meter.Int64Counter("pgequiv.config.reload_failures")

	// reload parses and validates the whole new file, and reads every file
	// it names, before applying any of it.
	reload := func() error {
		next, err := loadConfig(*path, env.getenv)
		if err == nil {
			wire(next)
			err = srv.Reload(next.opts)
		}
		if err == nil {
			err = observer.Reload(next.judge) // validated above; forgets introspected schemas
		}
		if err != nil {
			reloadFailed.Add(ctx, 1)
			logger.Error("config reload failed; keeping the running config", "err", err)
		} else {
			reloadOK.Add(ctx, 1)
			if next.cfg.Listen != cfg.Listen {
				logger.Warn("listen address change needs a restart; still listening on the old one", "old", cfg.Listen, "new", next.cfg.Listen)
			}
			if cfg.IsolationChanged(next.cfg) {
				logger.Warn("judge_isolation, judge_workers and judge_memory_limit changes need a restart; the running judge is kept")
			}
			tel.warnIfChanged(logger, next.cfg, env.getenv)
			level.Set(next.cfg.SlogLevel())
			if cfg.Mode != next.cfg.Mode {
				logModeOff(logger, next.cfg)
			}
			logReloaded(logger, cfg, next.cfg)
			cfg = next.cfg
			current.Store(cfg)
		}
		if env.reloaded != nil {
			env.reloaded(err)
		}
		return err
	}

	for {
		select {
		case err := <-served:
			return fmt.Errorf("serve: %w", err)
		case <-env.reload:
			_ = reload()
		case res := <-reloadReq:
			res <- reload()
		case <-ctx.Done():
			return drain(logger, srv, served, cfg.ShutdownTimeout, proxy.ErrServerClosed)
		}
	}
}

// modeOffHint is the line a relay in mode off logs. The shipped
// proxy.yaml says mode: off, and a relay user who only adds upstream:
// otherwise sees tagged queries pass with no verdict and no sign why
// (issue 37, item 7).
const modeOffHint = "relaying, mode off: tags are ignored; set mode: annotate (or log, enforce) to judge tagged queries"

// logModeOff logs modeOffHint when cfg relays in mode off.
func logModeOff(logger *slog.Logger, cfg *config.Config) {
	if !cfg.Upstream.None && cfg.Mode == "off" {
		logger.Info(modeOffHint)
	}
}

// orDiscard is w, or io.Discard for nil.
func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// drain shuts srv down, giving clients up to timeout to finish, and waits
// for Serve (which reports through served) to return closed.
func drain(logger *slog.Logger, srv interface{ Shutdown(context.Context) error }, served <-chan error, timeout time.Duration, closed error) error {
	logger.Info("shutting down", "timeout", timeout)
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	err := srv.Shutdown(sctx)
	cancel()
	if serr := <-served; !errors.Is(serr, closed) {
		return fmt.Errorf("serve: %w", serr)
	}
	if err != nil {
		logger.Warn("clients still connected at the shutdown timeout were disconnected")
	}
	return nil
}
