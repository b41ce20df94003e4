package main

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/config"
)

// TestTelemetryReloadNeedsRestart: a reload that changes the telemetry
// section or metrics_listen says that it needs a restart; one that
// leaves them alone says nothing.
func TestTelemetryReloadNeedsRestart(t *testing.T) {
	dir := t.TempDir()
	load := func(extra string) *config.Config {
		t.Helper()
		path := filepath.Join(dir, "proxy.yaml")
		body := "upstream:\n  address: 127.0.0.1:5432\nmetrics_listen: 127.0.0.1:0\n" + extra
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := loadConfigFile(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	noenv := func(string) string { return "" }
	tel, err := startTelemetry(load(""), serveEnv{getenv: noenv, stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.stop()
	for _, tc := range []struct {
		extra string
		warn  bool
	}{
		{"log_level: debug\n", false},
		{"telemetry:\n  endpoint: http://127.0.0.1:4318\n", true},
		{"telemetry:\n  sampling_ratio: 0.5\n", true},
	} {
		var buf bytes.Buffer
		tel.warnIfChanged(slog.New(slog.NewTextHandler(&buf, nil)), load(tc.extra), noenv)
		if got := strings.Contains(buf.String(), "need a restart"); got != tc.warn {
			t.Errorf("reload with %q: warned %v, want %v (%s)", tc.extra, got, tc.warn, buf.String())
		}
	}
}
