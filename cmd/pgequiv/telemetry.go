package main

import (
	"context"
	"log/slog"
	"reflect"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	mnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	tnoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/telemetry"
)

// serveTelemetry is the running telemetry of pgequiv serve.
type serveTelemetry struct {
	*telemetry.Telemetry
	logger *slog.Logger
	global bool // the providers are the otel globals
}

// startTelemetry installs OTLP export and the Prometheus endpoint from
// the config and the OTEL_* environment. When anything is on, the
// providers also become the otel globals, for the instrumentation that
// reads them (the judge workers' supervisor, database-free mode).
func startTelemetry(cfg *config.Config, env serveEnv) (*serveTelemetry, error) {
	s, err := cfg.TelemetrySettings(env.getenv)
	if err != nil {
		return nil, err
	}
	logger := slog.New(cfg.LogHandler(env.stderr, cfg.SlogLevel()))
	t, err := telemetry.Start(s, logger)
	if err != nil {
		return nil, err
	}
	if s.Enabled() {
		otel.SetTracerProvider(t.TracerProvider)
		otel.SetMeterProvider(t.MeterProvider)
		otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
		// Export errors repeat while a collector is down: one warning a
		// minute, the rest at debug; the drop counters have the numbers.
		var lastWarn atomic.Int64
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
			now := time.Now().UnixNano()
			if last := lastWarn.Load(); now-last > int64(time.Minute) && lastWarn.CompareAndSwap(last, now) {
				logger.Warn("telemetry: export failed (repeats are logged at debug level)", "err", err)
				return
			}
			logger.Debug("telemetry: export failed", "err", err)
		}))
	}
	if env.telemetry != nil {
		env.telemetry(t)
	}
	return &serveTelemetry{Telemetry: t, logger: logger, global: s.Enabled()}, nil
}

// stop flushes and closes, bounded by telemetry.shutdown_timeout.
func (t *serveTelemetry) stop() {
	if err := t.Shutdown(context.Background()); err != nil {
		t.logger.Warn("telemetry: not everything was flushed at exit", "err", err)
	}
	if t.global {
		// Instrumentation made after this (another serve in the same
		// process, in tests) must not record into shut-down providers.
		otel.SetTracerProvider(tnoop.NewTracerProvider())
		otel.SetMeterProvider(mnoop.NewMeterProvider())
	}
}

// warnIfChanged tells that telemetry and metrics_listen changes need a
// restart: instruments are bound to the providers made at start.
func (t *serveTelemetry) warnIfChanged(logger *slog.Logger, next *config.Config, getenv func(string) string) {
	s, err := next.TelemetrySettings(getenv)
	if err == nil && !reflect.DeepEqual(s, t.Settings()) {
		logger.Warn("telemetry and metrics_listen changes need a restart; the running telemetry is kept")
	}
}
