package config

import "time"

// Telemetry is proxy.yaml's telemetry section: OTLP export of traces and
// metrics. It is off while endpoint is empty and no OTEL_EXPORTER_OTLP_*
// endpoint variable is set; the standard OTEL_* variables win over these
// keys (docs/telemetry.md lists them).
type Telemetry struct {
	// Endpoint is the collector's base URL: http://host:4318 for
	// http/protobuf (the signal paths /v1/traces and /v1/metrics are
	// appended), http://host:4317 for grpc. https:// uses TLS.
	Endpoint string `yaml:"endpoint"`
	// Protocol is grpc or http/protobuf (http for short); default
	// http/protobuf.
	Protocol string `yaml:"protocol"`
	// Headers are sent with every export (authentication tokens).
	Headers map[string]string `yaml:"headers"`
	// Insecure allows plain-text gRPC to an endpoint without a scheme
	// decision; http:// endpoints are plain text anyway.
	Insecure bool `yaml:"insecure"`
	// CAFile verifies the collector's certificate (https endpoints).
	CAFile string `yaml:"ca_file"`
	// SamplingRatio of root traces kept, 0..1 (default 1). A query whose
	// comment carries a traceparent follows the application's decision.
	SamplingRatio *float64 `yaml:"sampling_ratio"`
	// Resource attributes; service.name defaults to pgequiv.
	Resource map[string]string `yaml:"resource"`
	// Timeout bounds each export (default 10s).
	Timeout time.Duration `yaml:"timeout"`
	// MetricInterval between OTLP metric exports (default 60s).
	MetricInterval time.Duration `yaml:"metric_interval"`
	// QueueSize bounds the spans waiting for export (default 2048); more
	// are dropped and counted (pgequiv_telemetry_spans_dropped_total).
	QueueSize int `yaml:"queue_size"`
	// ShutdownTimeout bounds the final flush at exit (default 5s).
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout"`
}
