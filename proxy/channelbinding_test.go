package proxy

import (
	"bytes"
	"log/slog"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// lockedBuffer collects a logger's output from the connections'
// goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestChannelBindingHint: with TLS on both legs, psql (libpq's default
// channel_binding=prefer) fails SCRAM at the upstream, as it must through
// a TLS-terminating proxy; the error it prints carries a HINT saying why
// and what to do, and the proxy logs a line. With channel_binding=disable
// the same login works.
func TestChannelBindingHint(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	var log lockedBuffer
	opts := upstreamOpts()
	opts.Upstream.TLSMode = TLSRequire
	opts.ClientTLS = proxyTLSConfig(t)
	opts.Logger = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	p := startProxy(t, opts)
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatalf("psql: %v (scripts/install-test-deps.sh installs it)", err)
	}
	run := func(binding string) (string, error) {
		cmd := exec.CommandContext(ctx, psql, "-X", "-A", "-t", "-h", p.Host, "-p", strconv.Itoa(p.Port),
			"-U", pgtest.ScramUser, "-d", pgtest.Database, "-c", "SELECT 'bound'")
		cmd.Env = append(cmd.Environ(), "PGPASSWORD="+pgtest.ScramPassword, "PGSSLMODE=require", "PGCHANNELBINDING="+binding)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("prefer")
	if err == nil {
		t.Fatalf("channel_binding=prefer through a TLS-terminating proxy succeeded:\n%s", out)
	}
	if !strings.Contains(out, "HINT:  pgequiv terminates TLS, so SCRAM channel binding cannot pass through it") ||
		!strings.Contains(out, "channel_binding=disable") {
		t.Fatalf("psql output lacks the hint:\n%s", out)
	}
	if !strings.Contains(log.String(), "SCRAM channel binding failed through the proxy") {
		t.Errorf("no log line:\n%s", log.String())
	}
	if out, err := run("disable"); err != nil || strings.TrimSpace(out) != "bound" {
		t.Fatalf("channel_binding=disable: %v\n%s", err, out)
	}
}
