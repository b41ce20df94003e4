package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync/atomic"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/dbfree"
	"github.com/pgequiv/pgequiv/proxy/judging"
)

// serveDatabaseFree is serve for "upstream: none": pgequiv answers
// clients itself (see package dbfree), with the same signal handling,
// telemetry (verdicts, judge latency, connections, worker events, spans)
// and admin console as relay mode.
func serveDatabaseFree(ctx context.Context, path string, cfg *config.Config, env serveEnv, tel *serveTelemetry) error {
	level := new(slog.LevelVar)
	level.Set(cfg.SlogLevel())
	logger := slog.New(logHandler(cfg, env.stderr, level))
	opts, err := dbfreeOptions(cfg)
	if err != nil {
		return err
	}
	// The judge is also the bound on concurrent judgements; it is closed
	// after the server has drained.
	judger, err := startJudge(cfg, logger)
	if err != nil {
		return err
	}
	defer judger.Close()
	var vfile *judging.VerdictFile
	if p := cfg.VerdictLogPath(); p != "" {
		if vfile, err = judging.OpenVerdictFile(p, int64(cfg.VerdictLogMaxSize)); err != nil {
			return err
		}
		defer vfile.Close()
	}
	// The Judging records what the server judges (it never observes a
	// relayed statement here): metrics, spans, SHOW VERDICTS, SHOW STATS.
	observer, err := judging.NewJudging(dbfreeJudgeSettings(cfg), judging.JudgingOptions{
		Logger: logger, Judger: judger, VerdictFile: vfile,
		TracerProvider: tel.TracerProvider, MeterProvider: tel.MeterProvider,
	})
	if err != nil {
		return err
	}
	defer observer.Wait()

	var current atomic.Pointer[config.Config]
	current.Store(cfg)
	reloadReq := make(chan chan error)
	var srv *dbfree.Server
	console := &proxy.Console{
		Judging: observer,
		Config:  func() [][2]string { return configSettings(current.Load()) },
		Reload:  consoleReload(reloadReq),
	}
	admin, err := proxy.New(proxy.Options{AdminOnly: true, Logger: logger, Admin: adminOptions(cfg, console),
		MaxMessageSize: int(cfg.MaxMessageSize), StartupTimeout: cfg.StartupTimeout})
	if err != nil {
		return err
	}
	console.Clients = func() []proxy.ClientInfo {
		var out []proxy.ClientInfo
		for _, c := range srv.Clients() {
			out = append(out, proxy.ClientInfo{ConnID: c.ConnID, User: c.User, Database: c.Database,
				ApplicationName: c.ApplicationName, Addr: c.Addr, State: "active", Since: c.Since})
		}
		return append(out, admin.Clients()...)
	}
	wire := func(c *config.Config, o *dbfree.Options) {
		o.Logger, o.Judger, o.Recorder = logger, judger, judgingRecorder{observer}
		if a := adminOptions(c, console); a != nil {
			o.AdminDatabase, o.AdminServe = a.Database, admin.ServeAdmin
		}
	}
	wire(cfg, &opts)
	if srv, err = dbfree.New(opts); err != nil {
		return err
	}
	if err := srv.Instrument(tel.MeterProvider); err != nil {
		return fmt.Errorf("serve: metrics: %w", err)
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	logger.Info("pgequiv listening in database-free mode", "addr", ln.Addr().String(),
		"schema_files", len(cfg.Schema.Files), "tables", len(opts.Schema.Tables), "password", cfg.Password != "",
		"admin_console", opts.AdminServe != nil)
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

	reload := func() error {
		// Parse and validate the whole new file, schemas included,
		// before applying any of it.
		next, err := loadConfigFile(path, env.getenv)
		if err == nil && !next.Upstream.None {
			err = errors.New("switching between database-free mode and an upstream needs a restart")
		}
		var nextOpts dbfree.Options
		if err == nil {
			nextOpts, err = dbfreeOptions(next)
		}
		if err == nil {
			err = admin.Reload(proxy.Options{AdminOnly: true, Logger: logger, Admin: adminOptions(next, console),
				MaxMessageSize: int(next.MaxMessageSize), StartupTimeout: next.StartupTimeout})
		}
		if err == nil {
			wire(next, &nextOpts)
			err = srv.Reload(nextOpts)
		}
		if err == nil {
			err = observer.Reload(dbfreeJudgeSettings(next))
		}
		if err != nil {
			reloadFailed.Add(ctx, 1)
			logger.Error("config reload failed; keeping the running config", "err", err)
		} else {
			reloadOK.Add(ctx, 1)
			if cfg.IsolationChanged(next) {
				logger.Warn("judge_isolation, judge_workers and judge_memory_limit changes need a restart; the running judge is kept")
			}
			tel.warnIfChanged(logger, next, env.getenv)
			level.Set(next.SlogLevel())
			logReloaded(logger, cfg, next)
			cfg = next
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
			return drain(logger, srv, served, cfg.ShutdownTimeout, dbfree.ErrServerClosed)
		}
	}
}

// dbfreeJudgeSettings are the Judging's settings in database-free mode:
// only what recording uses (redaction, the verdict list's size); the
// judge's own options travel with each judgement.
func dbfreeJudgeSettings(cfg *config.Config) judging.JudgeSettings {
	return judging.JudgeSettings{Mode: judging.ModeOff, VerdictTimeout: cfg.VerdictTimeout,
		LogLiterals: cfg.Log.Literals, RecentVerdicts: cfg.Admin.RecentVerdicts}
}

// consoleReload is the admin console's RELOAD: it asks serve's loop to
// reload, as SIGHUP does, and waits for the result.
func consoleReload(reloadReq chan<- chan error) func(context.Context) error {
	return func(ctx context.Context) error {
		res := make(chan error, 1)
		select {
		case reloadReq <- res:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case err := <-res:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// judgingRecorder records database-free judgements with the Judging.
type judgingRecorder struct{ j *judging.Judging }

func (r judgingRecorder) JudgeRecorded(ctx context.Context, j dbfree.Judgement, judge func(context.Context) (equivalence.Verdict, error)) (equivalence.Verdict, error) {
	return r.j.JudgeDirect(ctx, judging.DirectJudgement{ConnID: j.ConnID, User: j.User, Database: j.Database,
		Ref: j.Ref, Candidate: j.Candidate, SQL: j.SQL, Options: j.Options}, judge)
}
