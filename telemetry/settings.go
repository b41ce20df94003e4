// Package telemetry installs the OpenTelemetry SDK for pgequiv serve: OTLP
// export of traces and metrics (gRPC or HTTP) and a Prometheus /metrics
// endpoint, from proxy.yaml's telemetry section and the standard OTEL_*
// environment variables, which win over the file as the OpenTelemetry
// specification asks.
//
// Nothing here may slow the relay: spans wait in a bounded queue that
// drops (and counts) when full, metrics are aggregated in memory and
// exported on their own goroutine, and every export and the final flush
// have a deadline.
package telemetry

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/config"
)

// Protocols for OTLP export.
const (
	ProtocolGRPC = "grpc"
	ProtocolHTTP = "http/protobuf"
)

// Settings are the resolved telemetry settings: the file's values with
// the environment's applied over them.
type Settings struct {
	// TracesEndpoint and MetricsEndpoint are OTLP endpoint URLs; empty
	// turns that signal's export off.
	TracesEndpoint, MetricsEndpoint string
	// TracesProtocol and MetricsProtocol are ProtocolGRPC or ProtocolHTTP.
	TracesProtocol, MetricsProtocol string
	Headers                         map[string]string
	// Insecure: plain-text gRPC, or http:// allowed for HTTP.
	Insecure bool
	// CAFile verifies the collector's certificate; empty: system roots.
	CAFile string
	// Timeout bounds one export (and each retry round within it).
	Timeout time.Duration
	// SamplingRatio is the fraction of root traces recorded; spans with a
	// parent (a traceparent in the query's comment) follow its decision.
	SamplingRatio float64
	// Sampler names the sampler (OTEL_TRACES_SAMPLER values);
	// empty means parentbased_traceidratio with SamplingRatio.
	Sampler string
	// Resource attributes; service.name is always set.
	Resource map[string]string
	// MetricInterval is the OTLP metric export interval.
	MetricInterval time.Duration
	// QueueSize bounds the spans waiting for export; BatchSize is the most
	// exported at once.
	QueueSize, BatchSize int
	// ShutdownTimeout bounds the final flush.
	ShutdownTimeout time.Duration
	// MetricsListen is the Prometheus endpoint's address; empty: none.
	MetricsListen string
}

// FileSettings are the values a configuration file gives, before the
// environment.
type FileSettings struct {
	Endpoint        string
	Protocol        string
	Headers         map[string]string
	Insecure        bool
	CAFile          string
	Timeout         time.Duration
	SamplingRatio   *float64
	Resource        map[string]string
	MetricInterval  time.Duration
	QueueSize       int
	ShutdownTimeout time.Duration
	MetricsListen   string
}

// Defaults: proxy.yaml's, which the key table in config keeps.
const (
	DefaultTimeout         = config.DefaultTelemetryTimeout
	DefaultMetricInterval  = config.DefaultTelemetryMetricInterval
	DefaultQueueSize       = config.DefaultTelemetryQueueSize
	DefaultBatchSize       = 512
	DefaultShutdownTimeout = config.DefaultTelemetryShutdownTimeout
	DefaultServiceName     = config.DefaultServiceName
)

// Enabled reports whether anything is exported or served.
func (s Settings) Enabled() bool {
	return s.TracesEndpoint != "" || s.MetricsEndpoint != "" || s.MetricsListen != ""
}

// Resolve applies the OTEL_* environment (read through getenv) over the
// file's settings. A variable that is set wins over the file; a signal's
// own variable (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) wins over the generic
// one. OTEL_SDK_DISABLED=true turns OTLP export off (the Prometheus
// endpoint stays: it is not part of the SDK's configuration).
func Resolve(f FileSettings, getenv func(string) string) (Settings, error) {
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }
	s := fromFile(f)
	if err := s.resolveExport(f, env); err != nil {
		return s, err
	}
	if err := s.applyExportEnv(env); err != nil {
		return s, err
	}
	if err := s.applySamplerEnv(env); err != nil {
		return s, err
	}
	if err := s.applyResourceEnv(env); err != nil {
		return s, err
	}
	s.fillDefaults()
	return s, nil
}

// fromFile is the file's settings, before the environment.
func fromFile(f FileSettings) Settings {
	s := Settings{
		Headers: map[string]string{}, Insecure: f.Insecure, CAFile: f.CAFile, Timeout: f.Timeout,
		SamplingRatio: config.DefaultTelemetrySamplingRatio, Resource: map[string]string{}, MetricInterval: f.MetricInterval,
		QueueSize: f.QueueSize, BatchSize: DefaultBatchSize, ShutdownTimeout: f.ShutdownTimeout,
		MetricsListen: f.MetricsListen,
	}
	if f.SamplingRatio != nil {
		s.SamplingRatio = *f.SamplingRatio
	}
	for k, v := range f.Headers {
		s.Headers[k] = v
	}
	for k, v := range f.Resource {
		s.Resource[k] = v
	}
	return s
}

// resolveExport decides each signal's protocol and endpoint.
func (s *Settings) resolveExport(f FileSettings, env func(string) string) error {
	proto := f.Protocol
	if proto == "" {
		proto = config.DefaultTelemetryProtocol // the specification's default
	}
	if v := env("OTEL_EXPORTER_OTLP_PROTOCOL"); v != "" {
		proto = v
	}
	var err error
	if s.TracesProtocol, err = protocol(firstSet(env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"), proto)); err != nil {
		return err
	}
	if s.MetricsProtocol, err = protocol(firstSet(env("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"), proto)); err != nil {
		return err
	}

	base := firstSet(env("OTEL_EXPORTER_OTLP_ENDPOINT"), f.Endpoint)
	s.TracesEndpoint = signalEndpoint(env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), base, s.TracesProtocol, "v1/traces")
	s.MetricsEndpoint = signalEndpoint(env("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"), base, s.MetricsProtocol, "v1/metrics")
	if strings.EqualFold(env("OTEL_TRACES_EXPORTER"), "none") {
		s.TracesEndpoint = ""
	}
	if strings.EqualFold(env("OTEL_METRICS_EXPORTER"), "none") {
		s.MetricsEndpoint = ""
	}
	if strings.EqualFold(env("OTEL_SDK_DISABLED"), "true") {
		s.TracesEndpoint, s.MetricsEndpoint = "", ""
	}
	for _, e := range []string{s.TracesEndpoint, s.MetricsEndpoint} {
		if e == "" {
			continue
		}
		u, perr := url.Parse(e)
		if perr != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
			return fmt.Errorf("telemetry: endpoint %q: want a URL such as http://127.0.0.1:4318", e)
		}
		if u.Scheme == "http" {
			s.Insecure = true // the specification: the scheme decides
		}
	}
	return nil
}

// applyExportEnv applies the exporters' variables: headers, TLS, timeouts
// and the span queue.
func (s *Settings) applyExportEnv(env func(string) string) error {
	if v := env("OTEL_EXPORTER_OTLP_HEADERS"); v != "" {
		h, err := parseList(v)
		if err != nil {
			return fmt.Errorf("telemetry: OTEL_EXPORTER_OTLP_HEADERS: %w", err)
		}
		s.Headers = h // the variable replaces the file's headers
	}
	if v := env("OTEL_EXPORTER_OTLP_INSECURE"); v != "" {
		s.Insecure = strings.EqualFold(v, "true")
	}
	if v := env("OTEL_EXPORTER_OTLP_CERTIFICATE"); v != "" {
		s.CAFile = v
	}
	for _, d := range []struct {
		name string
		dst  *time.Duration
	}{{"OTEL_EXPORTER_OTLP_TIMEOUT", &s.Timeout}, {"OTEL_METRIC_EXPORT_INTERVAL", &s.MetricInterval}} {
		if v := env(d.name); v != "" {
			ms, err := strconv.Atoi(v)
			if err != nil || ms <= 0 {
				return fmt.Errorf("telemetry: %s %q: want milliseconds", d.name, v)
			}
			*d.dst = time.Duration(ms) * time.Millisecond
		}
	}
	if v := env("OTEL_BSP_MAX_QUEUE_SIZE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("telemetry: OTEL_BSP_MAX_QUEUE_SIZE %q: want a positive number", v)
		}
		s.QueueSize = n
	}
	return nil
}

// applySamplerEnv applies OTEL_TRACES_SAMPLER and its argument, and checks
// the ratio that results.
func (s *Settings) applySamplerEnv(env func(string) string) error {
	if v := env("OTEL_TRACES_SAMPLER"); v != "" {
		switch v {
		case "always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio":
			s.Sampler = v
		default:
			return fmt.Errorf("telemetry: OTEL_TRACES_SAMPLER %q is not supported", v)
		}
	}
	if v := env("OTEL_TRACES_SAMPLER_ARG"); v != "" && strings.HasSuffix(s.Sampler, "traceidratio") {
		r, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("telemetry: OTEL_TRACES_SAMPLER_ARG %q: %w", v, err)
		}
		s.SamplingRatio = r
	}
	if s.SamplingRatio < 0 || s.SamplingRatio > 1 {
		return fmt.Errorf("telemetry: sampling ratio %v is not in [0,1]", s.SamplingRatio)
	}
	return nil
}

// applyResourceEnv applies the resource's variables; service.name is
// always set.
func (s *Settings) applyResourceEnv(env func(string) string) error {
	if v := env("OTEL_RESOURCE_ATTRIBUTES"); v != "" {
		attrs, err := parseList(v)
		if err != nil {
			return fmt.Errorf("telemetry: OTEL_RESOURCE_ATTRIBUTES: %w", err)
		}
		for k, v := range attrs {
			s.Resource[k] = v
		}
	}
	if v := env("OTEL_SERVICE_NAME"); v != "" {
		s.Resource["service.name"] = v
	}
	if s.Resource["service.name"] == "" {
		s.Resource["service.name"] = DefaultServiceName
	}
	return nil
}

// fillDefaults gives what neither the file nor the environment set its
// default.
func (s *Settings) fillDefaults() {
	if s.Timeout <= 0 {
		s.Timeout = DefaultTimeout
	}
	if s.MetricInterval <= 0 {
		s.MetricInterval = DefaultMetricInterval
	}
	if s.QueueSize <= 0 {
		s.QueueSize = DefaultQueueSize
	}
	s.BatchSize = min(s.BatchSize, s.QueueSize)
	if s.ShutdownTimeout <= 0 {
		s.ShutdownTimeout = DefaultShutdownTimeout
	}
}

func firstSet(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func protocol(p string) (string, error) {
	switch p {
	case "grpc":
		return ProtocolGRPC, nil
	case "http", "http/protobuf":
		return ProtocolHTTP, nil
	}
	return "", fmt.Errorf("telemetry: protocol %q: want grpc or http/protobuf", p)
}

// signalEndpoint returns a signal's endpoint URL: its own variable as
// given, else the base endpoint with the signal's path appended for HTTP
// (as the specification says), else empty.
func signalEndpoint(own, base, proto, path string) string {
	if own != "" {
		return own
	}
	if base == "" {
		return ""
	}
	if proto == ProtocolHTTP {
		return strings.TrimRight(base, "/") + "/" + path
	}
	return base
}

// parseList parses the W3C-baggage-like key=value,key=value lists of
// OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES, with
// percent-encoded values.
func parseList(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%q is not key=value", item)
		}
		dv, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%q: %w", item, err)
		}
		out[strings.TrimSpace(k)] = dv
	}
	return out, nil
}
