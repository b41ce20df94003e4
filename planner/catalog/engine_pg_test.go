package catalog_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// pgEngine runs schema files through psql against a throwaway cluster,
// one fresh database per file, as a user loading the schema would.
type pgEngine struct {
	pg   *pgtest.Cluster
	psql string
	n    int
}

func newPGEngine(t *testing.T) *pgEngine {
	t.Helper()
	pg := pgtest.New(t, pgtest.Options{})
	psql, err := pg.ClientBin("psql")
	if err != nil {
		t.Fatalf("psql: %v", err)
	}
	return &pgEngine{pg: pg, psql: psql}
}

// run creates a database, runs ddl in it with psql -f (stopping at the
// first error) and returns a connection to it and psql's error output,
// empty when every statement succeeded.
func (e *pgEngine) run(t *testing.T, ctx context.Context, ddl string) (*pgx.Conn, string) {
	t.Helper()
	e.n++
	db := fmt.Sprintf("case%d", e.n)
	admin, err := pgx.Connect(ctx, e.pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "schema.sql")
	if err := os.WriteFile(file, []byte(ddl), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, e.psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", e.pg.Host, "-p", itoa(e.pg.Port), "-U", pgtest.SuperUser, "-d", db, "-f", file)
	out, runErr := cmd.CombinedOutput()
	msg := ""
	if runErr != nil {
		msg = strings.TrimSpace(string(out))
		if msg == "" {
			msg = runErr.Error()
		}
	}
	cs := strings.Replace(e.pg.ConnString(pgtest.SuperUser, ""), "dbname="+pgtest.Database, "dbname="+db, 1)
	conn, err := pgx.Connect(ctx, cs)
	if err != nil {
		t.Fatalf("connect %s: %v", cs, err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn, msg
}

// pgKeys lists, for each table of the public schema, its primary key
// and its unique constraints as "t: pk(a,b)" and "t: unique(c)", sorted.
func pgKeys(t *testing.T, ctx context.Context, conn *pgx.Conn) []string {
	t.Helper()
	rows, err := conn.Query(ctx, `
SELECT c.relname || ': ' || CASE k.contype WHEN 'p' THEN 'pk' ELSE 'unique' END || '(' ||
       (SELECT string_agg(a.attname, ',' ORDER BY x.i) FROM unnest(k.conkey) WITH ORDINALITY x(n, i)
        JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = x.n) || ')'
FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
JOIN pg_namespace s ON s.oid = c.relnamespace AND s.nspname = 'public'
WHERE k.contype IN ('p', 'u')
UNION ALL
SELECT c.relname || ': table' FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace AND s.nspname = 'public'
WHERE c.relkind IN ('r', 'p', 'v')`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// catalogKeys is pgKeys for a loaded schema.
func catalogKeys(s *catalog.Schema) []string {
	names := func(tb *catalog.Table, ords []int) string {
		var ns []string
		for _, o := range ords {
			ns = append(ns, tb.Columns[o].Name)
		}
		return strings.Join(ns, ",")
	}
	var out []string
	for _, tb := range s.Tables {
		out = append(out, tb.Name+": table")
		if len(tb.PrimaryKey) > 0 {
			out = append(out, tb.Name+": pk("+names(tb, tb.PrimaryKey)+")")
		}
		for _, u := range tb.Unique {
			out = append(out, tb.Name+": unique("+names(tb, u)+")")
		}
	}
	slices.Sort(out)
	return out
}
