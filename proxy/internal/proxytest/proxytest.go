// Package proxytest holds the parts of the relay's test harness that
// package proxy's tests and proxy/judging's share: contexts, the leak
// check, and the client programs the tests drive. It imports neither
// package (proxy/judging imports proxy, so proxy's own tests cannot import
// anything that does); each keeps the few lines that start its servers.
package proxytest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// Ctx returns a context that ends after d or with the test.
func Ctx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// CheckNoLeaks fails if any goroutine whose stack contains one of markers
// is still running. Servers wait for their goroutines when they close, so
// none may remain.
func CheckNoLeaks(t testing.TB, markers ...string) {
	t.Helper()
	// Goroutines that already returned can still show in a stack dump for
	// a moment (in runtime.goexit1); poll, yielding the processor, until
	// only real leftovers remain or the deadline passes.
	deadline := time.Now().Add(5 * time.Second)
	for {
		leaks := Goroutines(markers...)
		if len(leaks) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, s := range leaks {
				t.Errorf("leaked goroutine:\n%s", s)
			}
			return
		}
		runtime.Gosched()
	}
}

// Goroutines returns the stacks of live goroutines that contain one of
// markers.
func Goroutines(markers ...string) []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		s := string(g)
		if strings.Contains(s, "runtime.goexit1(") {
			continue // exiting
		}
		for _, m := range markers {
			if strings.Contains(s, m) {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// ClientBin returns the path of the PostgreSQL client program name of
// cluster c.
func ClientBin(t testing.TB, c *pgtest.Cluster, name string) string {
	t.Helper()
	path, err := c.ClientBin(name)
	if err != nil {
		t.Fatalf("%s not found (run scripts/install-test-deps.sh): %v", name, err)
	}
	return path
}

// RunTool runs bin with args and env added to the environment, and
// returns its combined output; it fails the test if bin fails.
func RunTool(t testing.TB, ctx context.Context, env []string, bin string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(cmd.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// EnsureNodeClient returns the node binary once the dependencies of
// nodeDir (test/node, as a path from the test's package) are installed
// (scripts/install-test-deps.sh does that; this installs them if they are
// missing). It skips the test when node or npm is missing or npm cannot
// reach the registry.
func EnsureNodeClient(t *testing.T, nodeDir string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed; run scripts/install-test-deps.sh")
	}
	if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "pg")); err == nil {
		return node
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm not installed; run scripts/install-test-deps.sh")
	}
	cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = nodeDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm ci in %s failed (offline?): %v\n%s", nodeDir, err, out)
	}
	return node
}
