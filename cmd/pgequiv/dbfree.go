package main

import (
	"context"
	"errors"
	"net"

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
func serveDatabaseFree(ctx context.Context, lc *lifecycle, path string, cfg *config.Config) error {
	opts, err := dbfreeOptions(cfg)
	if err != nil {
		return err
	}
	// The Judging records what the server judges (it never observes a
	// relayed statement here): metrics, spans, SHOW VERDICTS, SHOW STATS.
	stopJudging, err := lc.startJudging(cfg, dbfreeJudgeSettings(cfg), nil)
	if err != nil {
		return err
	}
	defer stopJudging()
	var srv *dbfree.Server
	console := lc.console()
	adminOpts := func(c *config.Config) proxy.Options {
		return proxy.Options{AdminOnly: true, Logger: lc.logger, Admin: adminOptions(c, console),
			MaxMessageSize: int(c.MaxMessageSize), StartupTimeout: c.StartupTimeout}
	}
	admin, err := proxy.New(adminOpts(cfg))
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
		o.Logger, o.Judger, o.Recorder = lc.logger, lc.judger, judgingRecorder{lc.observer}
		if a := adminOptions(c, console); a != nil {
			o.AdminDatabase, o.AdminServe = a.Database, admin.ServeAdmin
		}
	}
	wire(cfg, &opts)
	if srv, err = dbfree.New(opts); err != nil {
		return err
	}
	return lc.runServer(ctx, serverMode{
		srv:     srv,
		closed:  dbfree.ErrServerClosed,
		clients: func() int { return len(srv.Clients()) },
		listening: func(addr net.Addr) {
			lc.logger.Info("pgequiv listening in database-free mode", "addr", addr.String(),
				"schema_files", len(cfg.Schema.Files), "tables", len(opts.Schema.Tables), "password", cfg.Password != "",
				"admin_console", opts.AdminServe != nil)
		},
		load: func() (*config.Config, error) {
			next, err := loadConfigFile(path, lc.env.getenv)
			if err != nil {
				return nil, err
			}
			if !next.Upstream.None {
				return nil, errors.New("switching between database-free mode and an upstream needs a restart")
			}
			nextOpts, err := dbfreeOptions(next)
			if err != nil {
				return nil, err
			}
			if err := admin.Reload(adminOpts(next)); err != nil {
				return nil, err
			}
			wire(next, &nextOpts)
			if err := srv.Reload(nextOpts); err != nil {
				return nil, err
			}
			if err := lc.observer.Reload(dbfreeJudgeSettings(next)); err != nil {
				return nil, err
			}
			return next, nil
		},
	})
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
