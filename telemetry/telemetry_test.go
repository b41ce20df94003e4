package telemetry

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"testing"
	"time"
)

func TestResolve(t *testing.T) {
	ratio := 0.25
	file := FileSettings{Endpoint: "http://file:4318", Protocol: "grpc", Headers: map[string]string{"k": "file"},
		SamplingRatio: &ratio, Resource: map[string]string{"service.name": "file-svc", "team": "db"}}
	for _, tc := range []struct {
		name string
		file FileSettings
		env  map[string]string
		want func(s Settings) bool
		err  bool
	}{
		{"off by default", FileSettings{}, nil, func(s Settings) bool { return !s.Enabled() && s.Resource["service.name"] == "pgequiv" }, false},
		{"file only, grpc keeps the endpoint", file, nil, func(s Settings) bool {
			return s.TracesEndpoint == "http://file:4318" && s.TracesProtocol == ProtocolGRPC && s.Insecure &&
				s.SamplingRatio == 0.25 && s.Resource["service.name"] == "file-svc" && s.Headers["k"] == "file"
		}, false},
		{"env endpoint enables, http appends signal paths", FileSettings{}, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4318/"},
			func(s Settings) bool {
				return s.TracesEndpoint == "https://c:4318/v1/traces" && s.MetricsEndpoint == "https://c:4318/v1/metrics" &&
					s.TracesProtocol == ProtocolHTTP && !s.Insecure
			}, false},
		{"env wins over file", file, map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT": "http://env:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
			"OTEL_EXPORTER_OTLP_HEADERS": "k=env%20v", "OTEL_SERVICE_NAME": "env-svc", "OTEL_RESOURCE_ATTRIBUTES": "team=app,zone=a",
			"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.5", "OTEL_EXPORTER_OTLP_TIMEOUT": "1500",
		}, func(s Settings) bool {
			return s.TracesEndpoint == "http://env:4318/v1/traces" && s.Headers["k"] == "env v" && len(s.Headers) == 1 &&
				s.Resource["service.name"] == "env-svc" && s.Resource["team"] == "app" && s.Resource["zone"] == "a" &&
				s.SamplingRatio == 0.5 && s.Timeout == 1500*time.Millisecond
		}, false},
		{"a signal's own variable wins", file, map[string]string{
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t:9/x", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "http/protobuf",
		}, func(s Settings) bool {
			return s.TracesEndpoint == "http://t:9/x" && s.TracesProtocol == ProtocolGRPC &&
				s.MetricsEndpoint == "http://file:4318/v1/metrics" && s.MetricsProtocol == ProtocolHTTP
		}, false},
		{"exporters none and SDK disabled", file, map[string]string{"OTEL_TRACES_EXPORTER": "none"},
			func(s Settings) bool { return s.TracesEndpoint == "" && s.MetricsEndpoint != "" }, false},
		{"SDK disabled keeps /metrics", FileSettings{Endpoint: "http://x:1", MetricsListen: "127.0.0.1:0"}, map[string]string{"OTEL_SDK_DISABLED": "true"},
			func(s Settings) bool { return s.TracesEndpoint == "" && s.MetricsEndpoint == "" && s.Enabled() }, false},
		{"bad protocol", FileSettings{Protocol: "thrift"}, nil, nil, true},
		{"endpoint without scheme", FileSettings{Endpoint: "collector:4317"}, nil, nil, true},
		{"bad sampler", FileSettings{}, map[string]string{"OTEL_TRACES_SAMPLER": "jaeger_remote"}, nil, true},
		{"bad headers", FileSettings{}, map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "novalue"}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Resolve(tc.file, func(k string) string { return tc.env[k] })
			if tc.err {
				if err == nil {
					t.Fatalf("no error; got %+v", s)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.want(s) {
				t.Fatalf("settings %+v", s)
			}
		})
	}
}

// TestUnansweringEndpoint: with a collector that accepts connections and
// never answers, ending spans never waits: what does not fit the queue is
// dropped and counted, failed batches likewise, /metrics says so, and
// Shutdown returns within its timeout.
func TestUnansweringEndpoint(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0") // never accepted: requests hang
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, proto := range []string{"grpc", "http/protobuf"} {
		t.Run(proto, func(t *testing.T) {
			s, err := Resolve(FileSettings{Endpoint: "http://" + ln.Addr().String(), Protocol: proto, Timeout: 200 * time.Millisecond,
				QueueSize: 16, ShutdownTimeout: time.Second, MetricsListen: "127.0.0.1:0"}, func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			tel, err := Start(s, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			tr := tel.TracerProvider.Tracer("test")
			const spans = 5000
			for range spans {
				_, sp := tr.Start(context.Background(), "s")
				sp.End()
			}
			if full := tel.Dropped().QueueFull; full == 0 {
				t.Fatalf("%d spans into a queue of 16 behind a silent collector: none dropped", spans)
			}
			body := getMetrics(t, tel.MetricsAddr())
			m := regexp.MustCompile(`pgequiv_telemetry_spans_dropped_total\{[^}]*reason="queue_full"[^}]*\} (\d+)`).FindStringSubmatch(body)
			if m == nil {
				t.Fatalf("/metrics has no queue_full drop count:\n%s", body)
			}
			if n, _ := strconv.Atoi(m[1]); n == 0 {
				t.Fatalf("/metrics drop count 0")
			}
			start := time.Now()
			_ = tel.Shutdown(context.Background()) // an error is expected: nothing was flushed
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("Shutdown took %v with a 1s shutdown timeout", d)
			}
			d := tel.Dropped()
			if n := d.QueueFull + d.ExportFailed + d.Backoff; n == 0 || n > spans {
				t.Fatalf("dropped %+v of %d", d, spans)
			}
		})
	}
}

func getMetrics(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStartOff: nothing configured, nothing started.
func TestStartOff(t *testing.T) {
	s, err := Resolve(FileSettings{}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	tel, err := Start(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tel.MetricsAddr() != "" || tel.tp != nil || tel.mp != nil {
		t.Fatalf("telemetry started with nothing configured: %+v", tel)
	}
	if !reflect.DeepEqual(tel.Settings(), s) {
		t.Fatal("settings not kept")
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}
