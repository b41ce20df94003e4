package judging

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/lib/pq"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// The bypass suite for bind parameters (issue 19, finding 1): a
// parameterized statement is unknown at Parse (the refuter cannot run a
// free $n), so before Bind-time judging every driver that binds
// parameters ran wrong queries in enforce mode. Each driver here binds
// parameters through the proxy in enforce mode (enforce_unknown off); the
// wrong statements are refused and the right ones run, and a refused
// write is not in the database.

const bypassDB = "bypass"

const bypassDDL = `
CREATE TABLE pgbench_accounts (aid int NOT NULL PRIMARY KEY, bid int, abalance int, filler char(84));
CREATE TABLE pgbench_branches (bid int NOT NULL PRIMARY KEY, bbalance int, filler char(88));
CREATE TABLE pgbench_tellers (tid int NOT NULL PRIMARY KEY, bid int, tbalance int, filler char(84));
CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22));
CREATE TABLE notes (id int NOT NULL PRIMARY KEY, body text);`

var (
	bypassOnce sync.Once
	bypassErr  error
)

// setupBypass creates the bypass database: pgbench's tables (one branch,
// accounts 1..20 with abalance 10·aid) and notes.
func setupBypass(t testing.TB) {
	t.Helper()
	bypassOnce.Do(func() {
		bypassErr = createDatabase(bypassDB, bypassDDL+`
INSERT INTO pgbench_branches VALUES (1, 0, '');
INSERT INTO pgbench_accounts SELECT g, 1, 10 * g, '' FROM generate_series(1, 20) g;
INSERT INTO notes VALUES (1, 'O''Brien'), (2, 'a\b');`)
	})
	if bypassErr != nil {
		t.Fatalf("bypass database: %v", bypassErr)
	}
}

// bypassCatalog: a pgbench -S statement is matched by fingerprint; its
// reference admits only positive balances, so the statement as pgbench
// sends it is wrong for every aid. The second entry is right.
const bypassCatalog = `
references:
  - id: positive-balance
    match: SELECT abalance FROM pgbench_accounts WHERE aid = 1
    reference: SELECT abalance FROM pgbench_accounts WHERE aid = $1 AND abalance > 0
  - id: branch-of
    match: SELECT bid FROM pgbench_accounts WHERE aid = 1
    reference: SELECT a.bid FROM pgbench_accounts AS a WHERE a.aid = $1
`

// startBypassProxy runs an enforcing proxy over the bypass database.
func startBypassProxy(t *testing.T, enforceUnknown bool) *judgeEnv {
	t.Helper()
	setupBypass(t)
	schema, err := catalog.LoadDDL(bypassDDL, catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := tag.ParseCatalog([]byte(bypassCatalog))
	if err != nil {
		t.Fatal(err)
	}
	set := JudgeSettings{Mode: ModeEnforce, EnforceUnknown: enforceUnknown, VerdictTimeout: 10 * time.Second, Catalog: cat,
		Schemas: SchemaSettings{ByDatabase: map[string]*catalog.Schema{bypassDB: schema}}}
	return startJudgeProxy(t, set, JudgingOptions{})
}

// paramCase is one parameterized statement a driver sends; the driver
// reports its first column as text, or the SQLSTATE of its error.
type paramCase struct {
	Name string `json:"-"`
	SQL  string `json:"sql"`
	Args []any  `json:"args"`
	// Want is the expected first column of each row, or "ERROR "+SQLSTATE.
	Want []string `json:"-"`
}

// paramResult is what a driver reports for a paramCase.
type paramResult struct {
	Rows    []string `json:"rows"`
	Code    string   `json:"code"`
	Message string   `json:"message"`
}

func (r paramResult) got() []string {
	if r.Code != "" {
		return []string{"ERROR " + r.Code}
	}
	return r.Rows
}

// paramCases are the statements every driver sends, in order, on one
// connection; the last shows the connection is in step after refusals.
func paramCases() []paramCase {
	// $1 = aid: the catalog's match entry for aid = $1 would apply
	// whatever the tag says (issue 34, item 6).
	byAid := withComment("SELECT abalance FROM pgbench_accounts WHERE $1 = aid", "SELECT abalance FROM pgbench_accounts WHERE aid = 5")
	byBody := withComment("SELECT id FROM notes WHERE body = $1", "SELECT id FROM notes WHERE body = 'O''Brien'")
	byBackslash := withComment("SELECT id FROM notes WHERE body = $1", `SELECT id FROM notes WHERE body = 'a\b'`)
	refused := "ERROR " + SQLStateNotEquivalent
	return []paramCase{
		{Name: "value the reference admits", SQL: byAid, Args: []any{5}, Want: []string{"50"}},
		{Name: "value the reference does not admit", SQL: byAid, Args: []any{6}, Want: []string{refused}},
		{Name: "catalog: wrong for every value", SQL: "SELECT abalance FROM pgbench_accounts WHERE aid = $1", Args: []any{7}, Want: []string{refused}},
		{Name: "catalog: right for every value", SQL: "SELECT bid FROM pgbench_accounts WHERE aid = $1", Args: []any{8}, Want: []string{"1"}},
		{Name: "quoted string", SQL: byBody, Args: []any{"O'Brien"}, Want: []string{"1"}},
		{Name: "other string", SQL: byBody, Args: []any{"O'Brian"}, Want: []string{refused}},
		{Name: "backslash", SQL: byBackslash, Args: []any{`a\b`}, Want: []string{"2"}},
		{Name: "NULL", SQL: byBody, Args: []any{nil}, Want: []string{refused}},
		{Name: "after the refusals", SQL: "SELECT 1", Want: []string{"1"}},
	}
}

// paramWriteCase is a tagged parameterized UPDATE: not judgeable (it
// writes), so refused with enforce_unknown; aid 9 keeps abalance 90.
func paramWriteCase() paramCase {
	return paramCase{Name: "write", SQL: withComment("UPDATE pgbench_accounts SET abalance = $1 WHERE aid = $2", "SELECT 1"),
		Args: []any{999, 9}, Want: []string{"ERROR " + SQLStateUnverified}}
}

// paramDriver runs cases on one connection to host:port/bypass.
type paramDriver func(t *testing.T, ctx context.Context, port int, cases []paramCase) []paramResult

func TestBypassParamsDrivers(t *testing.T) {
	lenient := startBypassProxy(t, false)
	strict := startBypassProxy(t, true)
	ctx := testCtx(t, 240*time.Second)
	direct, err := pgx.Connect(ctx, dbConnString(pg.Host, pg.Port, pgtest.SuperUser, "", bypassDB))
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close(ctx)
	drivers := []struct {
		name string
		run  paramDriver
	}{
		{"pgx-cache-statement", pgxDriver(pgx.QueryExecModeCacheStatement)},
		{"pgx-cache-describe", pgxDriver(pgx.QueryExecModeCacheDescribe)},
		{"pgx-describe-exec", pgxDriver(pgx.QueryExecModeDescribeExec)},
		{"pgx-exec", pgxDriver(pgx.QueryExecModeExec)},
		{"lib-pq", libpqDriver},
		{"node-postgres", nodeDriver},
		{"psycopg3", psycopgDriver},
	}
	for _, d := range drivers {
		t.Run(d.name, func(t *testing.T) {
			cases := paramCases()
			for i, r := range d.run(t, ctx, lenient.Port, cases) {
				if got := r.got(); strings.Join(got, ",") != strings.Join(cases[i].Want, ",") {
					t.Errorf("%s: %q with %v: got %q (%s), want %q", cases[i].Name, cases[i].SQL, cases[i].Args, got, r.Message, cases[i].Want)
				}
			}
			w := paramWriteCase()
			for _, r := range d.run(t, ctx, strict.Port, []paramCase{w}) {
				if got := r.got(); strings.Join(got, ",") != strings.Join(w.Want, ",") {
					t.Errorf("write: got %q (%s), want %q", got, r.Message, w.Want)
				}
			}
			var bal int
			if err := direct.QueryRow(ctx, "SELECT abalance FROM pgbench_accounts WHERE aid = 9").Scan(&bal); err != nil || bal != 90 {
				t.Fatalf("the refused UPDATE ran: abalance %d, %v", bal, err)
			}
		})
	}
}

func pgxDriver(mode pgx.QueryExecMode) paramDriver {
	return func(t *testing.T, ctx context.Context, port int, cases []paramCase) []paramResult {
		conn, err := pgx.Connect(ctx, dbConnString("127.0.0.1", port, pgtest.SuperUser, "", bypassDB))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var out []paramResult
		for _, c := range cases {
			var r paramResult
			rows, err := conn.Query(ctx, c.SQL, append([]any{mode}, c.Args...)...)
			if err == nil {
				for rows.Next() {
					vals, verr := rows.Values()
					if verr != nil {
						err = verr
						break
					}
					r.Rows = append(r.Rows, fmt.Sprint(vals[0]))
				}
				rows.Close()
				if err == nil {
					err = rows.Err()
				}
			}
			r.setErr(t, err)
			out = append(out, r)
		}
		return out
	}
}

func (r *paramResult) setErr(t *testing.T, err error) {
	if err == nil {
		return
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		r.Code, r.Message, r.Rows = pgErr.Code, pgErr.Message, nil
		return
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		r.Code, r.Message, r.Rows = string(pqErr.Code), pqErr.Message, nil
		return
	}
	t.Fatalf("not a server error: %v", err)
}

func libpqDriver(t *testing.T, ctx context.Context, port int, cases []paramCase) []paramResult {
	db, err := sql.Open("postgres", dbConnString("127.0.0.1", port, pgtest.SuperUser, "", bypassDB)+" sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var out []paramResult
	for _, c := range cases {
		var r paramResult
		rows, err := db.QueryContext(ctx, c.SQL, c.Args...)
		if err == nil {
			for rows.Next() {
				var v any
				if err = rows.Scan(&v); err != nil {
					break
				}
				if b, ok := v.([]byte); ok {
					v = string(b)
				}
				r.Rows = append(r.Rows, fmt.Sprint(v))
			}
			rows.Close()
			if err == nil {
				err = rows.Err()
			}
		}
		r.setErr(t, err)
		out = append(out, r)
	}
	return out
}

// nodeParamsJS runs the cases of $CASES with node-postgres (text
// parameters, types left to the server, unnamed statements).
const nodeParamsJS = `
const { Client } = require('pg');
(async () => {
  const cases = JSON.parse(process.env.CASES);
  const c = new Client();
  await c.connect();
  const out = [];
  for (const k of cases) {
    try {
      const q = { text: k.sql, rowMode: 'array' };
      if (k.args !== null) q.values = k.args;
      const r = await c.query(q);
      out.push({ rows: r.rows.map((x) => String(x[0])) });
    } catch (e) {
      out.push({ code: e.code || '?', message: e.message });
    }
  }
  await c.end();
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`

func nodeDriver(t *testing.T, ctx context.Context, port int, cases []paramCase) []paramResult {
	node := ensureNodeClient(t)
	cmd := exec.CommandContext(ctx, node, "-e", nodeParamsJS)
	cmd.Dir = nodeDir
	return runJSONDriver(t, cmd, port, cases)
}

// psycopgParamsPy runs the cases of $CASES with psycopg 3 (server-side
// binding: %s placeholders become $n).
const psycopgParamsPy = `
import json, os, psycopg
cases = json.loads(os.environ['CASES'])
out = []
with psycopg.connect(os.environ['DSN'], autocommit=True) as conn:
    for k in cases:
        sql, args = k['sql'], k['args']
        if args is not None:
            sql = sql.replace('%', '%%')
            for i in range(len(args), 0, -1):
                sql = sql.replace('$%d' % i, '%s')
        try:
            cur = conn.execute(sql, args)
            out.append({'rows': [str(r[0]) for r in cur.fetchall()]})
        except psycopg.Error as e:
            out.append({'code': e.sqlstate or '?', 'message': str(e)})
print(json.dumps(out))
`

func psycopgDriver(t *testing.T, ctx context.Context, port int, cases []paramCase) []paramResult {
	const python = "/usr/bin/python3" // Debian's, with python3-psycopg
	if out, err := exec.Command(python, "-c", "import psycopg").CombinedOutput(); err != nil {
		t.Fatalf("python3-psycopg missing (run scripts/install-test-deps.sh): %v\n%s", err, out)
	}
	cmd := exec.CommandContext(ctx, python, "-c", psycopgParamsPy)
	return runJSONDriver(t, cmd, port, cases)
}

// runJSONDriver runs a driver script that reads $CASES and prints one
// JSON list of results.
func runJSONDriver(t *testing.T, cmd *exec.Cmd, port int, cases []paramCase) []paramResult {
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "CASES="+string(in), "PGHOST=127.0.0.1", "PGPORT="+strconv.Itoa(port),
		"PGUSER="+pgtest.SuperUser, "PGDATABASE="+bypassDB, "PGSSLMODE=disable",
		"DSN="+dbConnString("127.0.0.1", port, pgtest.SuperUser, "", bypassDB)+" sslmode=disable")
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s: %v\n%s%s", filepath.Base(cmd.Path), err, out, stderr)
	}
	var res []paramResult
	if err := json.Unmarshal(out, &res); err != nil || len(res) != len(cases) {
		t.Fatalf("driver output %q: %v", out, err)
	}
	return res
}

// TestBypassParamsPgbench: pgbench -S in prepared and extended mode sends
// the catalog's wrong statement with $1; every transaction is refused
// (before, all ran, unknown and forwarded). The right statement runs, and
// a refused tagged UPDATE leaves the row as it was.
func TestBypassParamsPgbench(t *testing.T) {
	lenient := startBypassProxy(t, false)
	strict := startBypassProxy(t, true)
	ctx := testCtx(t, 240*time.Second)
	pgbench := clientBin(t, "pgbench")
	dir := t.TempDir()
	right := filepath.Join(dir, "right.sql")
	write := filepath.Join(dir, "write.sql")
	if err := os.WriteFile(right, []byte("\\set aid random(1, 20)\nSELECT bid FROM pgbench_accounts WHERE aid = :aid;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	update := withComment("UPDATE pgbench_accounts SET abalance = :v WHERE aid = 9", "SELECT 1")
	if err := os.WriteFile(write, []byte("\\set v 999\n"+update+";\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bench := func(port int, mode string, script ...string) (string, error) {
		args := append([]string{"-n", "-M", mode, "-c", "1", "-t", "20", "-h", "127.0.0.1", "-p", strconv.Itoa(port),
			"-U", pgtest.SuperUser}, script...)
		cmd := exec.CommandContext(ctx, pgbench, append(args, bypassDB)...)
		cmd.Env = append(cmd.Environ(), "PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, mode := range []string{"prepared", "extended"} {
		t.Run(mode, func(t *testing.T) {
			out, err := bench(lenient.Port, mode, "-S")
			if err == nil || !strings.Contains(out, "actually processed: 0/20") || !strings.Contains(out, "pgequiv: query refused") {
				t.Errorf("pgbench -S -M %s ran the wrong statement (%v):\n%s", mode, err, out)
			}
			if out, err := bench(lenient.Port, mode, "-f", right); err != nil || !strings.Contains(out, "actually processed: 20/20") {
				t.Errorf("pgbench -M %s refused the right statement (%v):\n%s", mode, err, out)
			}
			out, err = bench(strict.Port, mode, "-f", write)
			if err == nil || !strings.Contains(out, "actually processed: 0/20") || !strings.Contains(out, "pgequiv: query refused") {
				t.Errorf("pgbench -M %s ran the tagged UPDATE (%v):\n%s", mode, err, out)
			}
			conn, err := pgx.Connect(ctx, dbConnString(pg.Host, pg.Port, pgtest.SuperUser, "", bypassDB))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			var bal int
			if err := conn.QueryRow(ctx, "SELECT abalance FROM pgbench_accounts WHERE aid = 9").Scan(&bal); err != nil || bal != 90 {
				t.Fatalf("the refused UPDATE ran: abalance %d, %v", bal, err)
			}
		})
	}
}

// TestBypassParamsPgxBatch: pgx prepares a batch's statements in one
// pipeline (Parse, Describe for each, one Sync), so the server's
// ParameterDescriptions must be matched to the right statements: the
// untagged one takes an int, the tagged one text. A mismatch would read
// the tagged statement's text value as an int and leave it unjudged.
func TestBypassParamsPgxBatch(t *testing.T) {
	e := startBypassProxy(t, false)
	ctx := testCtx(t, 60*time.Second)
	byBody := withComment("SELECT id FROM notes WHERE body = $1", "SELECT id FROM notes WHERE body = 'O''Brien'")
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe} {
		t.Run(mode.String(), func(t *testing.T) {
			cfg, err := pgx.ParseConfig(dbConnString(e.Host, e.Port, pgtest.SuperUser, "", bypassDB))
			if err != nil {
				t.Fatal(err)
			}
			cfg.DefaultQueryExecMode = mode
			conn, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			b := &pgx.Batch{}
			b.Queue("SELECT body FROM notes WHERE id = $1", 1)
			b.Queue(byBody, "O'Brian")
			res := conn.SendBatch(ctx, b)
			var body string
			if err := res.QueryRow().Scan(&body); err != nil || body != "O'Brien" {
				t.Fatalf("untagged statement: %q, %v", body, err)
			}
			var id int
			err = res.QueryRow().Scan(&id)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != SQLStateNotEquivalent {
				t.Fatalf("wrong tagged statement in a batch: %d, %v", id, err)
			}
			res.Close()
			if err := conn.QueryRow(ctx, byBody, "O'Brien").Scan(&id); err != nil || id != 1 {
				t.Fatalf("right value after the batch: %d, %v", id, err)
			}
		})
	}
}
