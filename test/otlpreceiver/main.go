// Command otlpreceiver is the OpenTelemetry Collector's OTLP receiver
// (go.opentelemetry.io/collector/receiver/otlpreceiver) with a consumer
// that appends what it receives, as OTLP JSON, one batch per line, to a
// file. The proxy's telemetry tests start it as a real OTLP endpoint
// (gRPC and HTTP) without building a whole collector distribution.
//
// It prints "ready grpc=ADDR http=ADDR" on standard output once both
// listeners accept, and runs until its standard input closes or it is
// signalled.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
)

func main() {
	grpcAddr := flag.String("grpc", "127.0.0.1:0", "OTLP/gRPC listen address")
	httpAddr := flag.String("http", "127.0.0.1:0", "OTLP/HTTP listen address")
	out := flag.String("out", "otlp.jsonl", "file the received traces and metrics are appended to")
	flag.Parse()
	if err := run(*grpcAddr, *httpAddr, *out); err != nil {
		log.Fatalf("otlpreceiver: %v", err)
	}
}

// freeAddr resolves a ":0" port to a free one, so the receiver (which
// does not report its bound address) can be told a concrete one.
func freeAddr(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func run(grpcAddr, httpAddr, out string) error {
	f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	var mu sync.Mutex
	write := func(b []byte, err error) error {
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		_, err = f.Write(append(b, '\n'))
		return err
	}
	traces, err := consumer.NewTraces(func(_ context.Context, td ptrace.Traces) error {
		return write((&ptrace.JSONMarshaler{}).MarshalTraces(td))
	})
	if err != nil {
		return err
	}
	metrics, err := consumer.NewMetrics(func(_ context.Context, md pmetric.Metrics) error {
		return write((&pmetric.JSONMarshaler{}).MarshalMetrics(md))
	})
	if err != nil {
		return err
	}

	if grpcAddr, err = freeAddr(grpcAddr); err != nil {
		return err
	}
	if httpAddr, err = freeAddr(httpAddr); err != nil {
		return err
	}
	factory := otlpreceiver.NewFactory()
	cfg := factory.CreateDefaultConfig().(*otlpreceiver.Config)
	cfg.Protocols.GRPC.GetOrInsertDefault().NetAddr.Endpoint = grpcAddr
	cfg.Protocols.HTTP.GetOrInsertDefault().ServerConfig.NetAddr.Endpoint = httpAddr
	set := receiver.Settings{
		ID:                component.NewID(factory.Type()),
		TelemetrySettings: componenttest.NewNopTelemetrySettings(),
		BuildInfo:         component.NewDefaultBuildInfo(),
	}
	ctx := context.Background()
	// The factory shares one receiver between signals for one config.
	tr, err := factory.CreateTraces(ctx, set, cfg, traces)
	if err != nil {
		return err
	}
	mr, err := factory.CreateMetrics(ctx, set, cfg, metrics)
	if err != nil {
		return err
	}
	host := componenttest.NewNopHost()
	if err := tr.Start(ctx, host); err != nil {
		return err
	}
	if err := mr.Start(ctx, host); err != nil {
		return err
	}
	fmt.Printf("ready grpc=%s http=%s\n", grpcAddr, httpAddr)

	done := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(done) }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	select {
	case <-done:
	case <-sig:
	}
	_ = tr.Shutdown(ctx)
	return mr.Shutdown(ctx)
}
