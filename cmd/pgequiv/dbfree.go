package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"

	"go.opentelemetry.io/otel"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/proxy/dbfree"
)

// serveDatabaseFree is serve for "upstream: none": pgequiv answers
// clients itself (see package dbfree), with the same signal handling.
func serveDatabaseFree(ctx context.Context, path string, cfg *config.Config, env serveEnv) error {
	level := new(slog.LevelVar)
	level.Set(cfg.SlogLevel())
	logger := slog.New(slog.NewTextHandler(env.stderr, &slog.HandlerOptions{Level: level}))
	opts, err := cfg.DBFreeOptions()
	if err != nil {
		return err
	}
	opts.Logger = logger
	// The judge is also the bound on concurrent judgements; it is closed
	// after the server has drained.
	judger, err := cfg.Judger(logger)
	if err != nil {
		return err
	}
	defer judger.Close()
	opts.Judger = judger
	srv, err := dbfree.New(opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	logger.Info("pgequiv listening in database-free mode", "addr", ln.Addr().String(),
		"schema_files", len(cfg.Schema.Files), "tables", len(opts.Schema.Tables), "password", cfg.Password != "")
	if env.listening != nil {
		env.listening(ln.Addr())
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	meter := otel.Meter("github.com/pgequiv/pgequiv/cmd/pgequiv")
	reloadOK, _ := meter.Int64Counter("pgequiv.config.reloads")
	reloadFailed, _ := meter.Int64Counter("pgequiv.config.reload_failures")

	for {
		select {
		case err := <-served:
			return fmt.Errorf("serve: %w", err)
		case <-env.reload:
			// Parse and validate the whole new file, schemas included,
			// before applying any of it.
			next, err := config.Load(path, env.getenv)
			if err == nil && !next.Upstream.None {
				err = errors.New("switching between database-free mode and an upstream needs a restart")
			}
			var nextOpts dbfree.Options
			if err == nil {
				nextOpts, err = next.DBFreeOptions()
			}
			if err == nil {
				nextOpts.Logger = logger
				err = srv.Reload(nextOpts)
			}
			if err != nil {
				reloadFailed.Add(ctx, 1)
				logger.Error("config reload failed; keeping the running config", "err", err)
			} else {
				reloadOK.Add(ctx, 1)
				if cfg.IsolationChanged(next) {
					logger.Warn("judge_isolation, judge_workers and judge_memory_limit changes need a restart; the running judge is kept")
				}
				level.Set(next.SlogLevel())
				cfg = next
				logger.Info("config reloaded")
			}
			if env.reloaded != nil {
				env.reloaded(err)
			}
		case <-ctx.Done():
			return drain(logger, srv, served, cfg.ShutdownTimeout, dbfree.ErrServerClosed)
		}
	}
}
