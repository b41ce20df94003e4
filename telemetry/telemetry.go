package telemetry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	mnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tnoop "go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc/credentials"
)

// Telemetry is the installed SDK: the providers to instrument with, and
// what must be flushed and closed at the end.
type Telemetry struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider

	settings Settings
	tp       *sdktrace.TracerProvider
	mp       *sdkmetric.MeterProvider
	queue    *spanQueue
	metrics  net.Listener
	srv      *http.Server
	log      *slog.Logger

	metricFailures atomic.Uint64
}

// Start installs the SDK for s. With nothing enabled it returns no-op
// providers (instrumentation then costs next to nothing). Nothing in Start
// connects to a collector: an unreachable endpoint shows later, as export
// failures and dropped spans, never as a slow or failed start.
func Start(s Settings, logger *slog.Logger) (*Telemetry, error) {
	if logger == nil {
		logger = slog.Default()
	}
	t := &Telemetry{settings: s, log: logger, TracerProvider: tnoop.NewTracerProvider(), MeterProvider: mnoop.NewMeterProvider()}
	if !s.Enabled() {
		return t, nil
	}
	res, err := t.resource()
	if err != nil {
		return nil, err
	}
	var tlsCfg *tls.Config
	if s.CAFile != "" {
		pem, err := os.ReadFile(s.CAFile)
		if err != nil {
			return nil, fmt.Errorf("telemetry: ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("telemetry: ca_file %s: no PEM certificates", s.CAFile)
		}
		tlsCfg = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}

	mopts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	var promReg *prometheus.Registry
	if s.MetricsListen != "" {
		promReg = prometheus.NewRegistry()
		promReg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		exp, err := otelprom.New(otelprom.WithRegisterer(promReg))
		if err != nil {
			return nil, fmt.Errorf("telemetry: prometheus exporter: %w", err)
		}
		mopts = append(mopts, sdkmetric.WithReader(exp))
	}
	if s.MetricsEndpoint != "" {
		exp, err := newMetricExporter(s, tlsCfg)
		if err != nil {
			return nil, err
		}
		mopts = append(mopts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(&countingMetricExporter{Exporter: exp, t: t},
			sdkmetric.WithInterval(s.MetricInterval), sdkmetric.WithTimeout(s.Timeout))))
	}
	t.mp = sdkmetric.NewMeterProvider(mopts...)
	t.MeterProvider = t.mp

	if s.TracesEndpoint != "" {
		exp, err := newTraceExporter(s, tlsCfg)
		if err != nil {
			_ = t.mp.Shutdown(context.Background())
			return nil, err
		}
		t.queue = newSpanQueue(exp, s.QueueSize, s.BatchSize, s.Timeout)
		t.tp = sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithSampler(backoffSampler{Sampler: sampler(s), q: t.queue}),
			sdktrace.WithSpanProcessor(t.queue))
		t.TracerProvider = t.tp
	}
	if err := t.instrument(); err != nil {
		_ = t.Shutdown(context.Background())
		return nil, err
	}

	if promReg != nil {
		ln, err := net.Listen("tcp", s.MetricsListen)
		if err != nil {
			_ = t.Shutdown(context.Background())
			return nil, fmt.Errorf("telemetry: metrics_listen: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(promReg, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}))
		t.metrics = ln
		t.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := t.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				logger.Error("telemetry: metrics endpoint stopped", "err", err)
			}
		}()
	}
	logger.Info("telemetry on", "traces", s.TracesEndpoint, "traces_protocol", s.TracesProtocol,
		"metrics", s.MetricsEndpoint, "metrics_protocol", s.MetricsProtocol, "metrics_listen", t.MetricsAddr())
	return t, nil
}

// MetricsAddr returns the Prometheus endpoint's bound address, or "".
func (t *Telemetry) MetricsAddr() string {
	if t.metrics == nil {
		return ""
	}
	return t.metrics.Addr().String()
}

// Settings returns the settings Start was given.
func (t *Telemetry) Settings() Settings { return t.settings }

// Shutdown flushes what is queued and closes the exporters and the
// metrics endpoint, giving up when ctx ends (the settings' shutdown
// timeout is applied on top).
func (t *Telemetry) Shutdown(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, t.settings.ShutdownTimeout)
	defer cancel()
	var errs []error
	if t.srv != nil {
		errs = append(errs, t.srv.Shutdown(ctx))
	}
	if t.tp != nil {
		errs = append(errs, t.tp.Shutdown(ctx))
	}
	if t.mp != nil {
		errs = append(errs, t.mp.Shutdown(ctx))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("telemetry: shutdown: %w", err)
	}
	return nil
}

func (t *Telemetry) resource() (*resource.Resource, error) {
	attrs := make([]attribute.KeyValue, 0, len(t.settings.Resource)+1)
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		attrs = append(attrs, attribute.String("service.version", bi.Main.Version))
	}
	for k, v := range t.settings.Resource {
		attrs = append(attrs, attribute.String(k, v))
	}
	// No resource.WithFromEnv: Resolve has applied OTEL_RESOURCE_ATTRIBUTES
	// and OTEL_SERVICE_NAME already, through the getenv it was given.
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attrs...))
	if err != nil {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	return res, nil
}

func sampler(s Settings) sdktrace.Sampler {
	ratio := sdktrace.TraceIDRatioBased(s.SamplingRatio)
	switch s.Sampler {
	case "always_on":
		return sdktrace.AlwaysSample()
	case "always_off":
		return sdktrace.NeverSample()
	case "traceidratio":
		return ratio
	case "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample())
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample())
	}
	return sdktrace.ParentBased(ratio)
}

// exporterRetries turns the OTLP exporters' own retries off: a retry
// encodes the batch again (gRPC marshals each attempt) and keeps trying a
// collector that is gone until the export timeout. One attempt per batch
// instead; a failed one is dropped and counted, and the span queue and
// the metric exporter back off (spanqueue.go).
const exporterRetries = false

// newTraceExporter builds the OTLP span exporter with every option given
// explicitly (Resolve has applied the environment), so the exporter's own
// reading of OTEL_* cannot disagree with it.
func newTraceExporter(s Settings, tlsCfg *tls.Config) (sdktrace.SpanExporter, error) {
	ctx := context.Background()
	if s.TracesProtocol == ProtocolGRPC {
		opts := []otlptracegrpc.Option{otlptracegrpc.WithEndpointURL(s.TracesEndpoint), otlptracegrpc.WithHeaders(s.Headers),
			otlptracegrpc.WithTimeout(s.Timeout),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: exporterRetries})}
		if s.Insecure {
			opts = append(opts, otlptracegrpc.WithInsecure())
		} else if tlsCfg != nil {
			opts = append(opts, otlptracegrpc.WithTLSCredentials(credentials.NewTLS(tlsCfg)))
		}
		exp, err := otlptracegrpc.New(ctx, opts...)
		if err != nil {
			return nil, fmt.Errorf("telemetry: OTLP/gRPC trace exporter: %w", err)
		}
		return exp, nil
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(s.TracesEndpoint), otlptracehttp.WithHeaders(s.Headers),
		otlptracehttp.WithTimeout(s.Timeout),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: exporterRetries})}
	if s.Insecure {
		opts = append(opts, otlptracehttp.WithInsecure())
	} else if tlsCfg != nil {
		opts = append(opts, otlptracehttp.WithTLSClientConfig(tlsCfg))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("telemetry: OTLP/HTTP trace exporter: %w", err)
	}
	return exp, nil
}

func newMetricExporter(s Settings, tlsCfg *tls.Config) (sdkmetric.Exporter, error) {
	ctx := context.Background()
	if s.MetricsProtocol == ProtocolGRPC {
		opts := []otlpmetricgrpc.Option{otlpmetricgrpc.WithEndpointURL(s.MetricsEndpoint), otlpmetricgrpc.WithHeaders(s.Headers),
			otlpmetricgrpc.WithTimeout(s.Timeout),
			otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig{Enabled: exporterRetries})}
		if s.Insecure {
			opts = append(opts, otlpmetricgrpc.WithInsecure())
		} else if tlsCfg != nil {
			opts = append(opts, otlpmetricgrpc.WithTLSCredentials(credentials.NewTLS(tlsCfg)))
		}
		exp, err := otlpmetricgrpc.New(ctx, opts...)
		if err != nil {
			return nil, fmt.Errorf("telemetry: OTLP/gRPC metric exporter: %w", err)
		}
		return exp, nil
	}
	opts := []otlpmetrichttp.Option{otlpmetrichttp.WithEndpointURL(s.MetricsEndpoint), otlpmetrichttp.WithHeaders(s.Headers),
		otlpmetrichttp.WithTimeout(s.Timeout),
		otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: exporterRetries})}
	if s.Insecure {
		opts = append(opts, otlpmetrichttp.WithInsecure())
	} else if tlsCfg != nil {
		opts = append(opts, otlpmetrichttp.WithTLSClientConfig(tlsCfg))
	}
	exp, err := otlpmetrichttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("telemetry: OTLP/HTTP metric exporter: %w", err)
	}
	return exp, nil
}
