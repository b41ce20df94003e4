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
	"syscall"

	"go.opentelemetry.io/otel"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/proxy"
)

// runServe implements "pgequiv serve --config proxy.yaml": it runs the
// proxy until SIGINT or SIGTERM (then shuts down gracefully, waiting up to
// shutdown_timeout for clients) and reloads the config on SIGHUP.
func runServe(ctx context.Context, args []string) error {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, serveEnv{reload: hup, getenv: os.Getenv, stderr: os.Stderr})
}

// serveEnv is what serve takes from the process; tests supply their own.
type serveEnv struct {
	reload <-chan os.Signal
	getenv func(string) string
	stderr io.Writer
	// listening, if set, is called with the bound address.
	listening func(net.Addr)
	// reloaded, if set, is called after each reload attempt.
	reloaded func(error)
}

func serve(ctx context.Context, args []string, env serveEnv) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	path := fs.String("config", "proxy.yaml", "path of the proxy configuration file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve: unexpected arguments %q", fs.Args())
	}

	cfg, opts, err := loadConfig(*path, env.getenv)
	if err != nil {
		return err
	}
	if cfg.Upstream.None {
		return serveDatabaseFree(ctx, *path, cfg, env)
	}
	level := new(slog.LevelVar)
	level.Set(cfg.SlogLevel())
	logger := slog.New(slog.NewTextHandler(env.stderr, &slog.HandlerOptions{Level: level}))
	opts.Logger = logger

	srv, err := proxy.New(opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	logger.Info("pgequiv proxy listening", "addr", ln.Addr().String(), "upstream", cfg.Upstream.Address, "tls_mode", cfg.Upstream.TLSMode)
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
			// Parse and validate the whole new file before applying any of it.
			next, nextOpts, err := loadConfig(*path, env.getenv)
			if err == nil {
				nextOpts.Logger = logger
				err = srv.Reload(nextOpts)
			}
			if err != nil {
				reloadFailed.Add(ctx, 1)
				logger.Error("config reload failed; keeping the running config", "err", err)
			} else {
				reloadOK.Add(ctx, 1)
				if next.Listen != cfg.Listen {
					logger.Warn("listen address change needs a restart; still listening on the old one", "old", cfg.Listen, "new", next.Listen)
				}
				level.Set(next.SlogLevel())
				cfg = next
				logger.Info("config reloaded")
			}
			if env.reloaded != nil {
				env.reloaded(err)
			}
		case <-ctx.Done():
			logger.Info("shutting down", "timeout", cfg.ShutdownTimeout)
			sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
			err := srv.Shutdown(sctx)
			cancel()
			if serr := <-served; !errors.Is(serr, proxy.ErrServerClosed) {
				return fmt.Errorf("serve: %w", serr)
			}
			if err != nil {
				logger.Warn("clients still connected at the shutdown timeout were disconnected")
			}
			return nil
		}
	}
}

// loadConfig loads and validates the file and builds the proxy options
// (which reads the certificate files), so that every error is found before
// anything is applied.
func loadConfig(path string, getenv func(string) string) (*config.Config, proxy.Options, error) {
	cfg, err := config.Load(path, getenv)
	if err != nil {
		return nil, proxy.Options{}, err
	}
	opts, err := cfg.ProxyOptions()
	if err != nil {
		return nil, proxy.Options{}, err
	}
	return cfg, opts, nil
}
