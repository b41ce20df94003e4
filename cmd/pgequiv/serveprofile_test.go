package main

import (
	"compress/gzip"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestServeProfiles: serve's profiling flags write a CPU, block, mutex and
// heap profile (gzipped protocol buffers, as pprof reads them), and an execution trace, once serve has shut
// down; an unwritable path is refused before serving.
func TestServeProfiles(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "proxy.yaml")
	if err := os.WriteFile(cfg, []byte("listen: 127.0.0.1:0\nupstream: none\nshutdown_timeout: 1s\nlog_level: error\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := func(name string) string { return filepath.Join(dir, name) }
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	addrCh := make(chan net.Addr, 1)
	done := make(chan error, 1)
	env := serveEnv{reload: make(chan os.Signal), getenv: func(string) string { return "" }, stderr: io.Discard,
		listening: func(a net.Addr) { addrCh <- a }}
	go func() {
		done <- serve(runCtx, []string{"--config", cfg, "--cpuprofile", out("cpu"), "--trace", out("trace"),
			"--blockprofile", out("block"), "--mutexprofile", out("mutex"), "--memprofile", out("mem")}, env)
	}()
	select {
	case <-addrCh:
	case err := <-done:
		t.Fatalf("serve exited: %v", err)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	for _, name := range []string{"cpu", "block", "mutex", "mem"} {
		f, err := os.Open(out(name))
		if err != nil {
			t.Fatal(err)
		}
		// A pprof profile is a gzipped protocol buffer.
		n := int64(0)
		zr, err := gzip.NewReader(f)
		if err == nil {
			n, err = io.Copy(io.Discard, zr)
		}
		f.Close()
		if err != nil || n == 0 {
			t.Fatalf("%s profile: %d bytes, %v", name, n, err)
		}
	}
	if st, err := os.Stat(out("trace")); err != nil || st.Size() == 0 {
		t.Fatalf("trace: %v (%v)", st, err)
	}

	err := serve(ctx, []string{"--config", cfg, "--cpuprofile", filepath.Join(dir, "missing", "cpu")}, env)
	if err == nil {
		t.Fatal("serve ran with an unwritable --cpuprofile")
	}
}
