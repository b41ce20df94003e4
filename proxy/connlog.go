package proxy

import (
	"context"
	"log/slog"
	"runtime"
	"time"
)

// A connection's log lines carry its id and client address, and once the
// startup message is read its user and database. The logger with those
// attributes is built on the first line actually written: most
// connections never log anything at the configured level, and the
// handler clones of two Logger.With calls cost several hundred bytes for
// as long as the connection lives (an idle one included).

// logDebug, logInfo, logWarn and logError log msg with args at their
// level.
func (c *conn) logDebug(msg string, args ...any) { c.logAt(slog.LevelDebug, msg, args...) }
func (c *conn) logInfo(msg string, args ...any)  { c.logAt(slog.LevelInfo, msg, args...) }
func (c *conn) logWarn(msg string, args ...any)  { c.logAt(slog.LevelWarn, msg, args...) }
func (c *conn) logError(msg string, args ...any) { c.logAt(slog.LevelError, msg, args...) }

// logAt writes one record through the connection's logger, as
// slog.Logger.Log would: the record's source is logAt's caller's caller
// (the line that called logDebug and the like).
func (c *conn) logAt(level slog.Level, msg string, args ...any) {
	ctx := context.Background()
	if !c.opts.Logger.Enabled(ctx, level) {
		return
	}
	var pcs [1]uintptr
	runtime.Callers(3, pcs[:]) // skip Callers, logAt and the level's method
	r := slog.NewRecord(time.Now(), level, msg, pcs[0])
	r.Add(args...)
	_ = c.logger().Handler().Handle(ctx, r)
}

// logLifecycle writes a connection's connect and disconnect lines at
// info level, as PgBouncer's login and close lines are: operators count
// sessions from them. They go straight to the handler with the
// connection's attributes rather than through logger(), which would keep
// a cloned handler alive for the life of every connection just for these
// two lines.
func (c *conn) logLifecycle(msg string, args ...any) {
	ctx := context.Background()
	if !c.opts.Logger.Enabled(ctx, slog.LevelInfo) {
		return
	}
	if l := c.log.Load(); l != nil {
		l.Info(msg, args...)
		return
	}
	var pcs [1]uintptr
	runtime.Callers(2, pcs[:]) // skip Callers and logLifecycle
	r := slog.NewRecord(time.Now(), slog.LevelInfo, msg, pcs[0])
	r.Add("conn", c.id, "client", c.remoteAddr)
	if c.logNamed {
		r.Add("user", c.session.User, "database", c.session.Database)
	}
	r.Add(args...)
	_ = c.opts.Logger.Handler().Handle(ctx, r)
}

// logger returns the connection's logger, building it on first use. Both
// relay goroutines may log, so it is published atomically; a loser of the
// race uses the winner's.
func (c *conn) logger() *slog.Logger {
	if l := c.log.Load(); l != nil {
		return l
	}
	l := c.opts.Logger.With("conn", c.id, "client", c.remoteAddr)
	if c.logNamed {
		l = l.With("user", c.session.User, "database", c.session.Database)
	}
	if !c.log.CompareAndSwap(nil, l) {
		return c.log.Load()
	}
	return l
}

// nameLog adds the session's user and database to the connection's log
// lines from now on. It runs once the startup message is read, on the
// connection's only goroutine at that point.
func (c *conn) nameLog() {
	c.logNamed = true
	if l := c.log.Load(); l != nil {
		c.log.Store(l.With("user", c.session.User, "database", c.session.Database))
	}
}

// debug reports whether debug lines are written: then the relay decodes
// messages it otherwise streams, to log them.
func (c *conn) debug() bool { return c.opts.Logger.Enabled(c.ctx, slog.LevelDebug) }
