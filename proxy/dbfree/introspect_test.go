package dbfree

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// introspectPair is a real PostgreSQL with the example schema loaded and
// a database-free server judging against the same schema: a client's
// metadata must be the same through both.
type introspectPair struct {
	real *pgtest.Cluster
	free *testServer
}

func newIntrospectPair(t *testing.T) *introspectPair {
	t.Helper()
	cl := pgtest.New(t, pgtest.Options{})
	ctx := testCtx(t)
	conn, err := pgx.Connect(ctx, cl.ConnString("postgres", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, catalog.ExampleDDL(), pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatalf("loading the example schema: %v", err)
	}
	return &introspectPair{real: cl, free: startServer(t, Options{})}
}

// runPsql runs psql -c cmd against addr as user postgres, database
// postgres, unaligned and without headers.
func runPsql(t *testing.T, addr, cmd string) (string, error) {
	t.Helper()
	return runPsqlFlags(t, addr, cmd, "-A", "-t")
}

// runPsqlFlags runs psql -X flags -c cmd against addr.
func runPsqlFlags(t *testing.T, addr, cmd string, flags ...string) (string, error) {
	t.Helper()
	psql, err := exec.LookPath("psql")
	if err != nil {
		dir, derr := pgtest.FindBinDir()
		if derr != nil {
			t.Fatalf("psql not found (run scripts/install-test-deps.sh): %v", err)
		}
		psql = filepath.Join(dir, "psql")
	}
	host, port, _ := net.SplitHostPort(addr)
	args := append(append([]string{"-X"}, flags...), "-h", host, "-p", port, "-U", "postgres", "-d", "postgres", "-c", cmd)
	c := exec.CommandContext(testCtx(t), psql, args...)
	c.Env = append(os.Environ(), "PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10")
	out, err := c.CombinedOutput()
	return string(out), err
}

// TestPsqlDescribeAsPostgres: psql's \d family lists the same tables,
// schemas and functions through database-free mode as from PostgreSQL
// with the same DDL loaded, because psql's own catalog queries run over
// the generated pg_catalog.
func TestPsqlDescribeAsPostgres(t *testing.T) {
	p := newIntrospectPair(t)
	for _, tc := range []struct {
		cmd  string
		want []string // lines that must be in the output
	}{
		{`\d`, []string{"public|dogs|table|postgres", "public|owners|table|postgres"}},
		{`\dt`, []string{"public|breeds|table|postgres", "public|treatments|table|postgres"}},
		{`\dn`, []string{"public|"}},
		{`\df`, nil},
		{`\dt do*`, []string{"public|dogs|table|postgres"}},
		{`\dt`, []string{"public|breeds|table|postgres"}},
		// \d TABLE and \d+ TABLE: columns, indexes, foreign keys both
		// ways, through queries with arrays and set-returning functions.
		{`\d dogs`, []string{"dog_id|integer||not null|", `"dogs_pkey" PRIMARY KEY, btree (dog_id)`,
			`TABLE "treatments" CONSTRAINT "treatments_dog_id_fkey" FOREIGN KEY (dog_id) REFERENCES dogs(dog_id)`}},
		{`\d+ dogs`, []string{"weight|numeric||||main|||", "Access method: heap"}},
		{`\d+ breeds`, []string{`"breeds_breed_name_key" UNIQUE CONSTRAINT, btree (breed_name)`}},
		{`\d treatments`, []string{`"treatments_professional_id_fkey" FOREIGN KEY (professional_id) REFERENCES professionals(professional_id)`}},
	} {
		flags := []string{"-A", "-t"}
		if strings.Contains(tc.cmd, " ") {
			// \d TABLE prints its indexes and keys as footers, which
			// -t would drop.
			flags = []string{"-A"}
		}
		t.Run(tc.cmd, func(t *testing.T) {
			want, err := runPsqlFlags(t, p.real.Addr(), tc.cmd, flags...)
			if err != nil {
				t.Fatalf("PostgreSQL: %v\n%s", err, want)
			}
			got, err := runPsqlFlags(t, p.free.addr, tc.cmd, flags...)
			if err != nil {
				t.Fatalf("database-free: %v\n%s", err, got)
			}
			// \dn's owner differs: PostgreSQL 15+ makes
			// pg_database_owner own public.
			if tc.cmd == `\dn` {
				want, got = firstFields(want), firstFields(got)
			}
			if got != want {
				t.Errorf("%s: database-free\n%s\nPostgreSQL\n%s", tc.cmd, got, want)
			}
			for _, w := range tc.want {
				if !strings.Contains(got+"|", w) {
					t.Errorf("%s: no %q in\n%s", tc.cmd, w, got)
				}
			}
		})
	}
	// psql's tab-completion queries (captured from psql 15 with
	// log_statement=all: "SELECT * FROM do<TAB>", "... WHERE na<TAB>",
	// "\d ow<TAB>") answer as PostgreSQL does.
	b, err := os.ReadFile("../../planner/pgcatalog/testdata/psql_complete.json")
	if err != nil {
		t.Fatal(err)
	}
	var complete []struct {
		SQL string `json:"sql"`
	}
	if err := json.Unmarshal(b, &complete); err != nil || len(complete) == 0 {
		t.Fatalf("psql_complete.json: %v", err)
	}
	for _, q := range complete {
		want, werr := runPsql(t, p.real.Addr(), q.SQL)
		got, gerr := runPsql(t, p.free.addr, q.SQL)
		// Without ORDER BY the row order is the server's (psql sorts the
		// candidates itself).
		if werr != nil || gerr != nil || sortedLines(got) != sortedLines(want) || strings.TrimSpace(got) == "" {
			t.Errorf("%s\ndatabase-free (%v):\n%s\nPostgreSQL (%v):\n%s", q.SQL, gerr, got, werr, want)
		}
	}
	// \l lists the connected database, UTF8.
	got, err := runPsql(t, p.free.addr, `\l`)
	if err != nil || !strings.Contains(got, "postgres|postgres|UTF8|") {
		t.Errorf(`\l: %v\n%s`, err, got)
	}
}

// sortedLines is s's lines, sorted.
func sortedLines(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	sort.Strings(l)
	return strings.Join(l, "\n")
}

// firstFields keeps the first |-separated field of each line.
func firstFields(s string) string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		f, _, _ := strings.Cut(l, "|")
		out = append(out, f)
	}
	return strings.Join(out, "\n")
}

// TestSQLAlchemyInspectAsPostgres: SQLAlchemy 1.4 with psycopg2 connects
// (its hstore type probe runs) and inspect() reports the same tables,
// columns, foreign keys, primary keys and has_table answers as from
// PostgreSQL.
func TestSQLAlchemyInspectAsPostgres(t *testing.T) {
	const python = "/usr/bin/python3" // Debian's, with python3-sqlalchemy and python3-psycopg2
	if out, err := exec.Command(python, "-c", "import sqlalchemy, psycopg2").CombinedOutput(); err != nil {
		t.Fatalf("python3-sqlalchemy missing (run scripts/install-test-deps.sh): %v\n%s", err, out)
	}
	p := newIntrospectPair(t)
	script := `
import sys, sqlalchemy as sa
e = sa.create_engine(sys.argv[1])
with e.connect() as c:
    i = sa.inspect(c)
    print(sorted(i.get_table_names()))
    for t in ("dogs", "owners"):
        print([(x["name"], str(x["type"]), x["nullable"]) for x in i.get_columns(t)])
        print(sorted((f["name"], f["constrained_columns"], f["referred_table"], f["referred_columns"]) for f in i.get_foreign_keys(t)))
        print(i.get_pk_constraint(t))
    print(i.has_table("dogs"), i.has_table("nope"))
`
	run := func(addr string) string {
		host, port, _ := net.SplitHostPort(addr)
		url := "postgresql+psycopg2://postgres@" + host + ":" + port + "/postgres?sslmode=disable"
		out, err := exec.CommandContext(testCtx(t), python, "-c", script, url).CombinedOutput()
		if err != nil {
			t.Fatalf("SQLAlchemy against %s: %v\n%s", addr, err, out)
		}
		return string(out)
	}
	want, got := run(p.real.Addr()), run(p.free.addr)
	if got != want {
		t.Errorf("database-free:\n%s\nPostgreSQL:\n%s", got, want)
	}
	if !strings.Contains(got, "('dogs_owner_id_fkey', ['owner_id'], 'owners', ['owner_id'])") || !strings.Contains(got, "True False") ||
		!strings.Contains(got, "{'constrained_columns': ['dog_id'], 'name': 'dogs_pkey'}") {
		t.Errorf("SQLAlchemy metadata:\n%s", got)
	}
}
