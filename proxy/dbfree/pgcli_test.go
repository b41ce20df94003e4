package dbfree

import (
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The Debian pgcli runs on the system Python (/usr/bin/python3).
const systemPython = "/usr/bin/python3"

func needPgcli(t *testing.T) {
	t.Helper()
	if out, err := exec.Command(systemPython, "-c", "import pgcli.pgexecute").CombinedOutput(); err != nil {
		t.Fatalf("pgcli missing (run scripts/install-test-deps.sh): %v\n%s", err, out)
	}
}

// pgcliMetadata runs pgcli's own completion-refresh queries (its
// PGExecute: search path, schemata, tables, views, columns, foreign keys,
// data types, databases, functions) against addr and prints what they
// return for schema public, sorted (PostgreSQL also lists its own
// pg_catalog and information_schema relations, which database-free mode
// does not hold).
const pgcliMetadata = `
import sys
from pgcli.pgexecute import PGExecute
e = PGExecute("postgres", "postgres", "", sys.argv[1], sys.argv[2], sslmode="disable")
pub = lambda rows: sorted(r for r in rows if r[0] == "public")
print("search_path", e.search_path())
print("schemata", "public" in e.schemata())
print("tables", pub(e.tables()))
print("views", pub(e.views()))
for c in pub(e.table_columns()):
    print("column", c)
for f in pub(e.foreignkeys()):
    print("fk", f)
print("datatypes", pub(e.datatypes()))
print("functions", sorted(f.func_name for f in e.functions() if f.schema_name == "public"))
print("databases", "postgres" in e.databases())
`

// TestPgcliAsPostgres: pgcli's completion metadata (queries with arrays,
// unnest, array_agg and a $1 = ANY parameter) is the same through
// database-free mode as from PostgreSQL with the same DDL; pgcli --list
// works; an interactive pgcli starts, refreshes its completions and quits
// without a traceback.
func TestPgcliAsPostgres(t *testing.T) {
	needPgcli(t)
	p := newIntrospectPair(t)
	ctx := testCtx(t)
	meta := func(addr string) string {
		host, port, _ := net.SplitHostPort(addr)
		out, err := exec.CommandContext(ctx, systemPython, "-c", pgcliMetadata, host, port).CombinedOutput()
		if err != nil {
			t.Fatalf("pgcli metadata from %s: %v\n%s", addr, err, out)
		}
		return string(out)
	}
	want, got := meta(p.real.Addr()), meta(p.free.addr)
	if got != want {
		t.Errorf("pgcli metadata, database-free:\n%s\nPostgreSQL:\n%s", got, want)
	}
	for _, w := range []string{"column ('public', 'dogs', 'breed_code', 'text', False, None)",
		"ForeignKey(parentschema='public', parenttable='owners', parentcolumn='owner_id', childschema='public', childtable='dogs', childcolumn='owner_id')"} {
		if !strings.Contains(got, w) {
			t.Errorf("no %q in\n%s", w, got)
		}
	}

	host, port, _ := net.SplitHostPort(p.free.addr)
	list := exec.CommandContext(ctx, "pgcli", "-h", host, "-p", port, "-U", "postgres", "--list")
	list.Env = append(os.Environ(), "HOME="+t.TempDir(), "PGSSLMODE=disable")
	out, err := list.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "| postgres ") || strings.Contains(string(out), "Traceback") {
		t.Errorf("pgcli --list: %v\n%s", err, out)
	}

	out, err = exec.CommandContext(ctx, systemPython, "testdata/pgcli_pty.py", host, port, t.TempDir()).CombinedOutput()
	s := string(out)
	if err != nil || !strings.Contains(s, "postgres>") || !strings.Contains(s, "Goodbye") ||
		strings.Contains(s, "Traceback") || strings.Contains(s, "rror") {
		t.Errorf("interactive pgcli: %v\n%s", err, s)
	}
}
