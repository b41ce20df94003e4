package main

import (
	"context"
	"fmt"
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
	s, err := telemetrySettings(cfg, env.getenv)
	if err != nil {
		return nil, err
	}
	logger := slog.New(logHandler(cfg, env.stderr, cfg.SlogLevel()))
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
	s, err := telemetrySettings(next, getenv)
	if err == nil && !reflect.DeepEqual(s, t.Settings()) {
		logger.Warn("telemetry and metrics_listen changes need a restart; the running telemetry is kept")
	}
}

// telemetrySettings resolves the telemetry section and metrics_listen
// with the OTEL_* environment read through getenv (nil: none).
func telemetrySettings(c *config.Config, getenv func(string) string) (telemetry.Settings, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	t := c.Telemetry
	ca := t.CAFile
	if ca != "" {
		ca = c.FilePath(ca)
	}
	s, err := telemetry.Resolve(telemetry.FileSettings{
		Endpoint: t.Endpoint, Protocol: t.Protocol, Headers: t.Headers, Insecure: t.Insecure, CAFile: ca,
		Timeout: t.Timeout, SamplingRatio: t.SamplingRatio, Resource: t.Resource, MetricInterval: t.MetricInterval,
		QueueSize: t.QueueSize, ShutdownTimeout: t.ShutdownTimeout, MetricsListen: c.MetricsListen,
	}, getenv)
	if err != nil {
		return s, fmt.Errorf("config: %w", err)
	}
	return s, nil
}

// checkTelemetry is the config.Check that resolves the file's telemetry
// settings alone (the environment is read at start), so that a bad
// endpoint is refused with the rest of the file.
func checkTelemetry(c *config.Config) error {
	_, err := telemetrySettings(c, nil)
	return err
}
