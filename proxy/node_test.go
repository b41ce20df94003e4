package proxy

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/proxy/internal/proxytest"
)

// nodeDir holds the node-postgres client script (see test/node).
const nodeDir = "../test/node"

// ensureNodeClient returns the node binary once test/node's dependencies
// are installed (see proxytest.EnsureNodeClient).
func ensureNodeClient(t *testing.T) string {
	t.Helper()
	return proxytest.EnsureNodeClient(t, nodeDir)
}

// TestNodePostgres runs the node-postgres script directly and through the
// proxy, as a SCRAM user, and compares the JSON it prints.
func TestNodePostgres(t *testing.T) {
	node := ensureNodeClient(t)
	p := startProxy(t, upstreamOpts())
	ctx := testCtx(t, 120*time.Second)
	run := func(port int) map[string]any {
		cmd := exec.CommandContext(ctx, node, "client.js")
		cmd.Dir = nodeDir
		cmd.Env = append(os.Environ(), "PGHOST=127.0.0.1", "PGPORT="+strconv.Itoa(port),
			"PGUSER="+pgtest.ScramUser, "PGPASSWORD="+pgtest.ScramPassword, "PGDATABASE="+pgtest.Database)
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("node client on port %d: %v\n%s%s", port, err, out, stderr)
		}
		var res map[string]any
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("node output %q: %v", out, err)
		}
		return res
	}
	direct := run(pg.Port)
	proxied := run(p.Port)
	d, _ := json.Marshal(direct)
	pr, _ := json.Marshal(proxied)
	if string(d) != string(pr) {
		t.Fatalf("node-postgres results differ:\n direct: %s\n  proxy: %s", d, pr)
	}
	// Spot-check that the script really did its work.
	if proxied["txError"] != "22012" || proxied["failedTx"] != "25P02" || proxied["notification"] != "node payload" ||
		proxied["bigRows"] != float64(5000) {
		t.Fatalf("unexpected node results: %s", pr)
	}
	if n, _ := proxied["named"].([]any); len(n) != 2 || n[1] != float64(42) {
		t.Fatalf("named statement results: %v", proxied["named"])
	}
}
