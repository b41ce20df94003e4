package dbfree

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNodePostgresCatalogAsPostgres: node-postgres reads
// information_schema (with a $1 parameter), pg_type and result column
// types through database-free mode as from PostgreSQL with the same DDL
// (test/node/catalog.js).
func TestNodePostgresCatalogAsPostgres(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not installed (run scripts/install-test-deps.sh): %v", err)
	}
	dir := filepath.Join("..", "..", "test", "node")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "pg")); err != nil {
		t.Fatalf("node-postgres missing: run npm ci in test/node (scripts/install-test-deps.sh): %v", err)
	}
	p := newIntrospectPair(t)
	run := func(addr string) string {
		host, port, _ := net.SplitHostPort(addr)
		c := exec.CommandContext(testCtx(t), node, "catalog.js")
		c.Dir = dir
		c.Env = append(os.Environ(), "PGHOST="+host, "PGPORT="+port, "PGUSER=postgres", "PGDATABASE=postgres", "PGSSLMODE=disable")
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("node-postgres against %s: %v\n%s", addr, err, out)
		}
		return string(out)
	}
	want, got := run(p.real.Addr()), run(p.free.addr)
	if got != want {
		t.Errorf("database-free:\n%s\nPostgreSQL:\n%s", got, want)
	}
	if !strings.Contains(got, `"column_name": "dog_id"`) || !strings.Contains(got, `"typname": "int4"`) {
		t.Errorf("node-postgres metadata:\n%s", got)
	}
}
