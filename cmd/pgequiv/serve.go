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
	"time"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/proxy"
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
	lc := newLifecycle(cfg, env, tel)
	if cfg.Upstream.None {
		return serveDatabaseFree(ctx, lc, *path, cfg)
	}
	return serveRelay(ctx, lc, *path, l)
}

// serveRelay is serve for a relay to upstream.address, from the loaded
// config l.
func serveRelay(ctx context.Context, lc *lifecycle, path string, l *loaded) error {
	cfg := l.cfg
	verdicts, closeVerdicts, err := verdictSink(cfg, orDiscard(lc.env.stdout), lc.env.stderr)
	if err != nil {
		return err
	}
	defer closeVerdicts.Close()
	// The judge is closed last, after background judgements have ended.
	stopJudging, err := lc.startJudging(cfg, l.judge, slog.New(slog.NewJSONHandler(verdicts, nil)))
	if err != nil {
		return err
	}
	defer stopJudging()
	console := lc.console()
	wire := func(l *loaded) {
		l.opts.Logger = lc.logger
		l.opts.Observer = lc.observer
		l.opts.Admin = adminOptions(l.cfg, console)
	}
	wire(l)
	srv, err := proxy.New(l.opts)
	if err != nil {
		return err
	}
	return lc.runServer(ctx, serverMode{
		srv:     srv,
		closed:  proxy.ErrServerClosed,
		clients: func() int { return len(srv.Clients()) },
		listening: func(addr net.Addr) {
			lc.logger.Info("pgequiv proxy listening", "addr", addr.String(), "upstream", cfg.Upstream.Address,
				"tls_mode", cfg.Upstream.TLSMode, "mode", cfg.Mode, "admin_console", len(cfg.Admin.Users) > 0)
			logModeOff(lc.logger, cfg)
		},
		load: func() (*config.Config, error) {
			next, err := loadConfig(path, lc.env.getenv)
			if err != nil {
				return nil, err
			}
			wire(next)
			if err := srv.Reload(next.opts); err != nil {
				return nil, err
			}
			// Validated above; forgets introspected schemas.
			if err := lc.observer.Reload(next.judge); err != nil {
				return nil, err
			}
			return next.cfg, nil
		},
		restartWarn: func(old, next *config.Config) {
			if next.Listen != old.Listen {
				lc.logger.Warn("listen address change needs a restart; still listening on the old one", "old", old.Listen, "new", next.Listen)
			}
		},
	})
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
