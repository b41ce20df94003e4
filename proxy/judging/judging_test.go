package judging

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// The kennel database holds catalog.ExampleDDL with a few rows.
const kennelDB = "kennel"

var (
	kennelOnce sync.Once
	kennelErr  error
)

// dbConnString is a keyword/value connection string to database db.
func dbConnString(host string, port int, user, password, db string) string {
	return pgtest.ConnString(host, port, user, password) + " dbname=" + db
}

func setupKennel(t testing.TB) {
	t.Helper()
	kennelOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		admin, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
		if err != nil {
			kennelErr = err
			return
		}
		defer admin.Close(ctx)
		if _, kennelErr = admin.Exec(ctx, "CREATE DATABASE "+kennelDB); kennelErr != nil {
			return
		}
		conn, err := pgx.Connect(ctx, dbConnString(pg.Host, pg.Port, pgtest.SuperUser, "", kennelDB))
		if err != nil {
			kennelErr = err
			return
		}
		defer conn.Close(ctx)
		_, kennelErr = conn.Exec(ctx, catalog.ExampleDDL()+`
INSERT INTO owners VALUES (1, 'Ann', 'Lee', 'Oslo', 'ann@example.com');
INSERT INTO dogs (dog_id, owner_id, name, age) VALUES (1, 1, 'Rex', 7), (2, 1, 'Fido', 3);`)
	})
	if kennelErr != nil {
		t.Fatalf("kennel database: %v", kennelErr)
	}
}

func kennelSchema(t testing.TB) *catalog.Schema {
	t.Helper()
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type judgeEnv struct {
	*testProxy
	j    *Judging
	logs *syncBuffer // operational log (text)
	vlog *syncBuffer // verdict log (JSON lines)
}

// startJudgeProxy runs a proxy with a Judging observer. The judging
// observer's background work is waited for after the server closes.
func startJudgeProxy(t testing.TB, set JudgeSettings, o JudgingOptions, edit ...func(*proxy.Options)) *judgeEnv {
	t.Helper()
	setupKennel(t)
	e := &judgeEnv{logs: &syncBuffer{}, vlog: &syncBuffer{}}
	o.Logger = slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	o.VerdictLog = slog.New(slog.NewJSONHandler(e.vlog, nil))
	j, err := NewJudging(set, o)
	if err != nil {
		t.Fatal(err)
	}
	e.j = j
	// Cleanups run last-in first-out: the server closes, then background
	// judgements are waited for, then the leak check runs.
	if _, loaded := leakChecked.LoadOrStore(t, true); !loaded {
		t.Cleanup(func() {
			leakChecked.Delete(t)
			checkNoLeaks(t)
		})
	}
	t.Cleanup(j.Wait)
	opts := upstreamOpts()
	opts.Observer = j
	for _, f := range edit {
		f(&opts)
	}
	e.testProxy = startProxy(t, opts)
	return e
}

func annotateSettings(t testing.TB) JudgeSettings {
	return JudgeSettings{
		Mode:           ModeAnnotate,
		VerdictTimeout: 10 * time.Second,
		Schemas:        SchemaSettings{ByDatabase: map[string]*catalog.Schema{kennelDB: kennelSchema(t)}},
	}
}

const (
	countStar    = "SELECT count(*) FROM dogs WHERE age > 5"
	countOwner   = "SELECT count(owner_id) FROM dogs WHERE age > 5"
	equivNotice  = "pgequiv: equivalent (score "
	kennelCatalg = `
references:
  - id: old-dogs
    match: SELECT count(owner_id) FROM dogs WHERE age > 1 AND owner_id > 0
    reference: SELECT count(*) FROM dogs WHERE age > 1 AND owner_id > 0
`
)

func withComment(sql, ref string) string {
	return sql + " " + tag.Encode(tag.KV{Key: tag.KeyRef, Value: ref})
}

// connectNotices connects to db through the proxy and collects notices.
func (e *judgeEnv) connectNotices(t testing.TB, ctx context.Context, db string) (*pgx.Conn, func() []string) {
	t.Helper()
	cfg, err := pgx.ParseConfig(dbConnString(e.Host, e.Port, pgtest.SuperUser, "", db))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var notices []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		mu.Lock()
		notices = append(notices, n.Message)
		mu.Unlock()
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn, func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := notices
		notices = nil
		return out
	}
}

// TestJudgePsqlTagForms: psql through an annotating proxy, with the
// reference given by a comment, by SET pgequiv.reference and by a catalog
// match; each verdict is a NOTICE psql prints.
func TestJudgePsqlTagForms(t *testing.T) {
	set := annotateSettings(t)
	cat, err := tag.ParseCatalog([]byte(kennelCatalg))
	if err != nil {
		t.Fatal(err)
	}
	set.Catalog = cat
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	psql := clientBin(t, "psql")
	out := runTool(t, ctx, []string{"PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10"}, psql,
		"-X", "-v", "ON_ERROR_STOP=1", "-h", e.Host, "-p", strconv.Itoa(e.Port), "-U", pgtest.SuperUser, "-d", kennelDB,
		"-c", withComment(countOwner, countStar), // 1: comment
		"-c", "SET pgequiv.reference = '"+countStar+"'",
		"-c", countOwner, // 2: session setting
		"-c", "RESET pgequiv.reference",
		"-c", "SELECT count(owner_id) FROM dogs WHERE age > 1 AND owner_id > 0", // 3: catalog match by fingerprint
		"-c", "SELECT count(*), 1 AS extra FROM dogs "+tag.Encode(tag.KV{Key: tag.KeyRefID, Value: "old-dogs"}), // not equivalent
		"-c", "SELECT 'untagged'",
	)
	if n := strings.Count(out, "NOTICE:  "+equivNotice); n != 3 {
		t.Errorf("%d equivalence notices, want 3:\n%s", n, out)
	}
	if !strings.Contains(out, "count-star-not-null)") {
		t.Errorf("notice does not name the rule:\n%s", out)
	}
	if !strings.Contains(out, "NOTICE:  pgequiv: not_equivalent") {
		t.Errorf("no not_equivalent notice:\n%s", out)
	}
	if strings.Count(out, "NOTICE:") != 4 {
		t.Errorf("want exactly 4 notices (none for SET, RESET or untagged):\n%s", out)
	}
	// psql prints the proxy's own command tags for the pgequiv settings.
	for _, want := range []string{"\nSET\n", "\nRESET\n", "untagged"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	vs := e.j.RecentVerdicts()
	if len(vs) != 4 || vs[0].Label != "not_equivalent" || vs[1].Source != "catalog" || vs[2].Source != "session" || vs[3].Source != "comment" {
		t.Errorf("recent verdicts: %+v", vs)
	}
}

// TestJudgePgxAnnotate: results through an annotating proxy equal direct
// results in every pgx query mode, and the notice arrives before the
// query returns.
func TestJudgePgxAnnotate(t *testing.T) {
	e := startJudgeProxy(t, annotateSettings(t), JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	conn, notices := e.connectNotices(t, ctx, kennelDB)
	direct, err := pgx.Connect(ctx, dbConnString(pg.Host, pg.Port, pgtest.SuperUser, "", kennelDB))
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close(ctx)
	ref := "SELECT name, age FROM dogs WHERE age > 1 ORDER BY name"
	for i, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec,
		pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe, pgx.QueryExecModeDescribeExec} {
		t.Run(mode.String(), func(t *testing.T) {
			// A distinct text per mode, so cached statements are parsed anew.
			cand := withComment("SELECT name, age FROM dogs WHERE 1 < age AND "+strconv.Itoa(i)+" = "+strconv.Itoa(i)+" ORDER BY name", ref)
			read := func(c *pgx.Conn) []string {
				rows, err := c.Query(ctx, cand, mode)
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for rows.Next() {
					var name string
					var age int
					if err := rows.Scan(&name, &age); err != nil {
						t.Fatal(err)
					}
					out = append(out, name+":"+strconv.Itoa(age))
				}
				if err := rows.Err(); err != nil {
					t.Fatal(err)
				}
				return out
			}
			want, got := read(direct), read(conn)
			if strings.Join(got, ",") != strings.Join(want, ",") || len(got) != 2 {
				t.Fatalf("through proxy %v, direct %v", got, want)
			}
			// One notice per Parse (cache_describe parses twice).
			ns := notices()
			if len(ns) == 0 {
				t.Fatal("no notice")
			}
			for _, n := range ns {
				if !strings.HasPrefix(n, equivNotice) {
					t.Fatalf("notices %q", ns)
				}
			}
		})
	}
}

// TestJudgeSessionSettings: SET/RESET of pgequiv settings are answered by
// the proxy (the server never sees them) in the simple protocol; RESET
// ALL clears them and still reaches the server.
func TestJudgeSessionSettings(t *testing.T) {
	e := startJudgeProxy(t, annotateSettings(t), JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	conn, notices := e.connectNotices(t, ctx, kennelDB)
	simple := pgx.QueryExecModeSimpleProtocol
	exec := func(sql string, mode pgx.QueryExecMode) string {
		t.Helper()
		tag, err := conn.Exec(ctx, sql, mode)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return tag.String()
	}
	if got := exec("SET pgequiv.reference = '"+countStar+"'", simple); got != "SET" {
		t.Fatalf("SET answered %q", got)
	}
	// The proxy answers SHOW with the session's setting, as PostgreSQL
	// would, one text column named after it ...
	show := func(name string) string {
		t.Helper()
		rows, err := conn.Query(ctx, "SHOW "+name, simple)
		if err != nil {
			t.Fatalf("SHOW %s: %v", name, err)
		}
		var got []string
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				t.Fatalf("SHOW %s: %v", name, err)
			}
			got = append(got, v)
		}
		if err := rows.Err(); err != nil || len(got) != 1 || len(rows.FieldDescriptions()) != 1 ||
			rows.FieldDescriptions()[0].Name != name || rows.CommandTag().String() != "SHOW" {
			t.Fatalf("SHOW %s: %q %v %+v %q", name, got, err, rows.FieldDescriptions(), rows.CommandTag())
		}
		return got[0]
	}
	if got := show("pgequiv.reference"); got != countStar {
		t.Fatalf("SHOW pgequiv.reference = %q, want %q", got, countStar)
	}
	if got := show("pgequiv.reference_id"); got != "" {
		t.Fatalf("SHOW pgequiv.reference_id = %q, want empty", got)
	}
	// ... while the server never saw the setting (a Parse is forwarded).
	res := conn.PgConn().ExecParams(ctx, "SHOW pgequiv.reference", nil, nil, nil, nil).Read()
	var pgErr *pgconn.PgError
	if !errors.As(res.Err, &pgErr) || pgErr.Code != "42704" {
		t.Fatalf("SHOW pgequiv.reference reached the server's setting: %v", res.Err)
	}
	exec("BEGIN", simple) // not a query: not judged
	exec(countOwner, simple)
	exec("COMMIT", simple)
	if ns := notices(); len(ns) != 1 || !strings.HasPrefix(ns[0], equivNotice) {
		t.Fatalf("notices with the setting: %q", ns)
	}
	if got := exec("RESET pgequiv.reference", simple); got != "RESET" {
		t.Fatalf("RESET answered %q", got)
	}
	exec(countOwner, simple)
	if ns := notices(); len(ns) != 0 {
		t.Fatalf("notices after RESET: %q", ns)
	}
	exec("SET pgequiv.reference TO '"+countStar+"'", simple)
	if got := exec("RESET ALL", simple); got != "RESET" {
		t.Fatalf("RESET ALL answered %q", got)
	}
	exec(countOwner, simple)
	if ns := notices(); len(ns) != 0 {
		t.Fatalf("notices after RESET ALL: %q", ns)
	}
	// In the extended protocol the setting is applied and forwarded; the
	// server keeps it as a placeholder.
	extended := func(sql string) {
		t.Helper()
		if res := conn.PgConn().ExecParams(ctx, sql, nil, nil, nil, nil).Read(); res.Err != nil {
			t.Fatalf("%s: %v", sql, res.Err)
		}
	}
	extended("SET pgequiv.reference = '" + countStar + "'")
	extended(countOwner)
	if ns := notices(); len(ns) != 1 || !strings.HasPrefix(ns[0], equivNotice) {
		t.Fatalf("notices after an extended-protocol SET: %q", ns)
	}
	var shown string
	if err := conn.QueryRow(ctx, "SHOW pgequiv.reference", simple).Scan(&shown); err != nil || shown != countStar {
		t.Fatalf("server's placeholder: %q, %v", shown, err)
	}
	if got := statMap(e.j)["session_commands"]; got != 5 {
		t.Errorf("%d session commands, want 5 (SET, RESET, SET, RESET ALL, extended SET)", got)
	}
	notices()
	// An id the catalog lacks: queries report it, other statements are
	// left alone.
	exec("RESET pgequiv.reference", simple)
	exec("SET pgequiv.reference_id = 'nope'", simple)
	exec("BEGIN", simple)
	exec(countOwner, simple)
	exec("ROLLBACK", simple)
	if ns := notices(); len(ns) != 1 || !strings.Contains(ns[0], `unknown reference id "nope"`) {
		t.Fatalf("notices with an unknown id: %q", ns)
	}
}

// TestJudgeEnforce: refused statements get the documented SQLSTATE and
// never reach the server; equivalent ones run.
func TestJudgeEnforce(t *testing.T) {
	set := annotateSettings(t)
	set.Mode = ModeEnforce
	set.EnforceUnknown = true
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	conn, notices := e.connectNotices(t, ctx, kennelDB)
	direct, err := pgx.Connect(ctx, dbConnString(pg.Host, pg.Port, pgtest.SuperUser, "", kennelDB))
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close(ctx)

	for i, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		t.Run(mode.String(), func(t *testing.T) {
			var n int
			if err := conn.QueryRow(ctx, withComment(countOwner, countStar), mode).Scan(&n); err != nil || n != 1 {
				t.Fatalf("equivalent query: %d, %v", n, err)
			}
			_, err := conn.Exec(ctx, withComment("SELECT count(*), 1 FROM dogs WHERE age > 5", countStar), mode)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || pgErr.Code != SQLStateNotEquivalent || !strings.Contains(pgErr.Message, "not_equivalent") {
				t.Fatalf("not equivalent query: %v", err)
			}
			id := 100 + i
			insert := withComment("INSERT INTO owners (owner_id, first_name, last_name) VALUES ("+strconv.Itoa(id)+", 'Eve', 'Mallory')",
				"SELECT owner_id FROM owners")
			_, err = conn.Exec(ctx, insert, mode)
			if !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified {
				t.Fatalf("unverifiable INSERT: %v", err)
			}
			var rows int
			if err := direct.QueryRow(ctx, "SELECT count(*) FROM owners WHERE owner_id = $1", id).Scan(&rows); err != nil || rows != 0 {
				t.Fatalf("the refused INSERT ran: %d rows, %v", rows, err)
			}
			if err := conn.QueryRow(ctx, "SELECT 7", mode).Scan(&n); err != nil || n != 7 {
				t.Fatalf("after refusals: %d, %v", n, err)
			}
		})
	}
	if ns := notices(); len(ns) != 0 {
		t.Errorf("enforce mode sent notices %q", ns)
	}
	if st := statMap(e.j); st["refusals"] != 4 || st["not_equivalent"] != 2 || st["equivalent"] != 2 {
		t.Errorf("stats %v", st)
	}

	// Equivalent only if treatments is not empty: refused unless that
	// assumption kind is accepted.
	maxRef, topCand := "SELECT max(cost) FROM treatments", "SELECT cost FROM treatments ORDER BY cost DESC LIMIT 1"
	_, err = conn.Exec(ctx, withComment(topCand, maxRef))
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != SQLStateNotEquivalent || !strings.Contains(pgErr.Message, "treatments is not empty") {
		t.Fatalf("assumption not accepted: %v", err)
	}
	set.Options.AcceptAssumptions = []equivalence.AssumptionKind{equivalence.AssumeNonEmpty}
	if err := e.j.Reload(set); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, withComment(topCand, maxRef)); err != nil {
		t.Fatalf("assumption accepted: %v", err)
	}
}

func statMap(j *Judging) map[string]uint64 {
	m := map[string]uint64{}
	for _, s := range j.Stats() {
		m[s.Name] = s.Value
	}
	return m
}

// TestJudgeLogMode: the client sees nothing; each verdict is one JSON
// line with literals redacted unless configured.
func TestJudgeLogMode(t *testing.T) {
	set := annotateSettings(t)
	set.Mode = ModeLog
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	conn, notices := e.connectNotices(t, ctx, kennelDB)
	cand := withComment("SELECT count(owner_id) FROM dogs WHERE name = 'Rex'", "SELECT count(*) FROM dogs WHERE name = 'Rex'")
	var n int
	if err := conn.QueryRow(ctx, cand).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d, %v", n, err)
	}
	e.j.Wait()
	if ns := notices(); len(ns) != 0 {
		t.Fatalf("log mode sent notices %q", ns)
	}
	line := lastJSONLine(t, e.vlog.String())
	if line["msg"] != "pgequiv verdict" || line["label"] != "equivalent" || line["reference_fingerprint"] == "" ||
		line["query_fingerprint"] == "" || line["database"] != kennelDB {
		t.Fatalf("verdict line %v", line)
	}
	if q := line["query"].(string); strings.Contains(q, "Rex") || !strings.Contains(q, "name = ?") || strings.Contains(q, "pgequiv_ref") {
		t.Fatalf("query not redacted: %q", q)
	}
	if _, ok := line["latency_ms"].(float64); !ok {
		t.Fatalf("no latency: %v", line)
	}

	// Differences are redacted too, and kept with log.literals.
	set.LogLiterals = false
	diff := withComment("SELECT name FROM dogs WHERE age > 6", "SELECT name FROM dogs WHERE age > 5")
	if _, err := conn.Exec(ctx, diff); err != nil {
		t.Fatal(err)
	}
	e.j.Wait()
	line = lastJSONLine(t, e.vlog.String())
	diffs, _ := json.Marshal(line["differences"])
	if line["label"] == "equivalent" || !strings.Contains(string(diffs), "?") || strings.Contains(string(diffs), "7") {
		t.Fatalf("differences not redacted: %s (%v)", diffs, line)
	}
	set.LogLiterals = true
	if err := e.j.Reload(set); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, diff); err != nil {
		t.Fatal(err)
	}
	e.j.Wait()
	line = lastJSONLine(t, e.vlog.String())
	diffs, _ = json.Marshal(line["differences"])
	if !strings.Contains(line["query"].(string), "age > 6") || !strings.Contains(string(diffs), "7") {
		t.Fatalf("literals dropped with log.literals: %v", line)
	}
}

func lastJSONLine(t testing.TB, s string) map[string]any {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(s), "\n")
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil {
		t.Fatalf("not a JSON line: %v\n%s", err, s)
	}
	return m
}

// TestJudgeVerdictTimeout: a verdict not ready when the response ends is
// logged, counted and shown in SHOW VERDICTS; the client's result is not
// held back beyond the budget, and carries "no verdict in time" instead. In enforce mode with enforce_unknown, a
// timeout refuses.
func TestJudgeVerdictTimeout(t *testing.T) {
	set := annotateSettings(t)
	set.VerdictTimeout = 100 * time.Millisecond
	e := startJudgeProxy(t, set, JudgingOptions{})
	release := make(chan struct{})
	e.j.setTestingKnobs(judgingKnobs{beforeJudge: func(context.Context) { <-release }})
	ctx := testCtx(t, 60*time.Second)
	conn, notices := e.connectNotices(t, ctx, kennelDB)
	start := time.Now()
	var n int
	if err := conn.QueryRow(ctx, withComment(countOwner, countStar)).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d, %v", n, err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the response waited %v for the verdict", took)
	}
	close(release) // the judgement finishes after the response ended
	e.j.Wait()
	if ns := notices(); len(ns) != 1 || !strings.Contains(ns[0], "no verdict in time") {
		t.Fatalf("notices %q: want only the proxy's own 'no verdict in time', not the late verdict", ns)
	}
	if logs := e.logs.String(); !strings.Contains(logs, "pgequiv verdict not ready when the response ended") {
		t.Fatalf("late verdict not logged:\n%s", logs)
	}
	if st := statMap(e.j); st["late"] != 1 || st["timeouts"] != 1 {
		t.Fatalf("stats %v", st)
	}
	if v := e.j.RecentVerdicts(); len(v) != 1 || v[0].Action != "late" || v[0].Label != "timeout" {
		t.Fatalf("recent %+v", v)
	}

	// Enforce: a timeout is unknown, refused with enforce_unknown.
	set.Mode, set.EnforceUnknown = ModeEnforce, true
	if err := e.j.Reload(set); err != nil {
		t.Fatal(err)
	}
	e.j.setTestingKnobs(judgingKnobs{beforeJudge: func(ctx context.Context) { <-ctx.Done() }})
	_, err := conn.Exec(ctx, withComment(countOwner, countStar))
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified || !strings.Contains(pgErr.Message, "no verdict in time") {
		t.Fatalf("enforce timeout: %v", err)
	}
}

// TestJudgeIntrospectedSchema: with no DDL configured the schema is read
// from the upstream's catalog, and DDL through the proxy refreshes it.
func TestJudgeIntrospectedSchema(t *testing.T) {
	setupKennel(t)
	ctx := testCtx(t, 60*time.Second)
	admin := connectDirect(t, ctx)
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS intro WITH (FORCE)"); err != nil { // -count > 1
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE intro"); err != nil {
		t.Fatal(err)
	}
	direct, err := pgx.Connect(ctx, dbConnString(pg.Host, pg.Port, pgtest.SuperUser, "", "intro"))
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close(ctx)
	if _, err := direct.Exec(ctx, `
CREATE TABLE people (id int PRIMARY KEY, email text UNIQUE, name text NOT NULL, "Mixed Case" numeric(10,2));
CREATE TABLE pets (id int PRIMARY KEY, owner_id int NOT NULL REFERENCES people (id), tag varchar(20));
CREATE UNIQUE INDEX pets_tag ON pets (tag);
CREATE INDEX pets_owner ON pets (owner_id);
CREATE VIEW named AS SELECT name FROM people WHERE email IS NOT NULL;
CREATE SCHEMA hidden; CREATE TABLE hidden.secret (x int);
INSERT INTO people VALUES (1, 'a@b', 'Ann', 1.5);
INSERT INTO pets VALUES (1, 1, 't1');`); err != nil {
		t.Fatal(err)
	}
	in := Introspection{Upstream: proxy.Upstream{Address: pg.Addr(), TLSMode: proxy.TLSDisable}, User: pgtest.SuperUser, Timeout: 10 * time.Second}
	s, ddl, err := Introspect(ctx, in, "intro")
	if err != nil {
		t.Fatalf("%v\n%s", err, ddl)
	}
	for _, want := range []string{`"Mixed Case" numeric(10,2)`, "PRIMARY KEY (id)", "UNIQUE (email)", "FOREIGN KEY (owner_id) REFERENCES people(id)",
		"CREATE UNIQUE INDEX pets_tag", `CREATE VIEW "named" ("name") AS`, `"owner_id" integer NOT NULL`, "character varying(20)"} {
		if !strings.Contains(ddl, want) {
			t.Errorf("DDL lacks %q:\n%s", want, ddl)
		}
	}
	if strings.Contains(ddl, "secret") || strings.Contains(ddl, "pets_owner") {
		t.Errorf("DDL has relations off the search path or non-unique indexes:\n%s", ddl)
	}
	if s.Table("pets") == nil || s.Table("named") == nil || len(s.Table("pets").ForeignKeys) != 1 || len(s.Table("pets").Unique) != 1 {
		t.Fatalf("schema misses tables or keys:\n%s", ddl)
	}

	set := JudgeSettings{Mode: ModeAnnotate, VerdictTimeout: 20 * time.Second, Schemas: SchemaSettings{Introspect: &in}}
	e := startJudgeProxy(t, set, JudgingOptions{})
	conn, notices := e.connectNotices(t, ctx, "intro")
	q := withComment("SELECT count(owner_id) FROM pets", "SELECT count(*) FROM pets")
	if _, err := conn.Exec(ctx, q); err != nil {
		t.Fatal(err)
	}
	if ns := notices(); len(ns) != 1 || !strings.HasPrefix(ns[0], equivNotice) || !strings.Contains(ns[0], "count-star-not-null") {
		t.Fatalf("with NOT NULL introspected: %q", ns)
	}
	// DDL through the proxy refreshes the schema: without NOT NULL,
	// count(owner_id) no longer counts every row.
	if _, err := conn.Exec(ctx, "ALTER TABLE pets ALTER COLUMN owner_id DROP NOT NULL"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, q); err != nil {
		t.Fatal(err)
	}
	if ns := notices(); len(ns) != 1 || strings.HasPrefix(ns[0], equivNotice) {
		t.Fatalf("after DROP NOT NULL: %q", ns)
	}
	if st := statMap(e.j); st["introspections"] < 2 || st["introspection_failures"] != 0 {
		t.Fatalf("stats %v", st)
	}
	// With a refresh interval every use past it reads the schema again.
	before := statMap(e.j)["introspections"]
	set.Schemas.RefreshInterval = time.Nanosecond
	if err := e.j.Reload(set); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	notices()
	if got := statMap(e.j)["introspections"]; got != before+2 {
		t.Fatalf("%d introspections after two uses past the interval, want %d", got, before+2)
	}
	// A database without a schema source says so.
	e.j.Reload(JudgeSettings{Mode: ModeAnnotate})
	if _, err := conn.Exec(ctx, q); err != nil {
		t.Fatal(err)
	}
	if ns := notices(); len(ns) != 1 || !strings.Contains(ns[0], "no schema") {
		t.Fatalf("without a schema source: %q", ns)
	}
}

// TestAdminConsole: psql on the virtual database pgequiv, answered by the
// proxy itself.
func TestAdminConsole(t *testing.T) {
	var reloads int
	var mu sync.Mutex
	set := annotateSettings(t)
	var j *Judging
	e := startJudgeProxy(t, set, JudgingOptions{}, func(o *proxy.Options) {
		o.Admin = &proxy.AdminOptions{Users: []string{pgtest.SuperUser, pgtest.ScramUser}, Password: "console-pw", Console: &proxy.Console{
			Judging: nil, // set below, once the observer exists
			Config:  func() [][2]string { return [][2]string{{"mode", "annotate"}, {"admin.password", "(hidden)"}} },
			Reload: func(context.Context) error {
				mu.Lock()
				reloads++
				mu.Unlock()
				return nil
			},
		}}
	})
	j = e.j
	e.Options().Admin.Console.(*proxy.Console).Judging = j
	ctx := testCtx(t, 60*time.Second)
	conn, _ := e.connectNotices(t, ctx, kennelDB)
	if _, err := conn.Exec(ctx, withComment(countOwner, countStar)); err != nil {
		t.Fatal(err)
	}
	psql := clientBin(t, "psql")
	env := []string{"PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10", "PGPASSWORD=console-pw"}
	args := func(user string, cmds ...string) []string {
		a := []string{"-X", "-v", "ON_ERROR_STOP=1", "-h", e.Host, "-p", strconv.Itoa(e.Port), "-U", user, "-d", "pgequiv"}
		for _, c := range cmds {
			a = append(a, "-c", c)
		}
		return a
	}
	out := runTool(t, ctx, env, psql, args(pgtest.SuperUser, "SHOW VERDICTS", "show stats", "SHOW CLIENTS", "SHOW CONFIG", "RELOAD")...)
	for _, want := range []string{
		"equivalent", "comment", "annotated", // SHOW VERDICTS
		"tagged", "cache_misses", // SHOW STATS
		kennelDB, "relay", // SHOW CLIENTS: the pgx connection
		"(hidden)", // SHOW CONFIG
		"RELOAD",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("admin output lacks %q:\n%s", want, out)
		}
	}
	// pgx in the simple protocol reads the first counter.
	admin, err := pgx.Connect(ctx, dbConnString(e.Host, e.Port, pgtest.SuperUser, "console-pw", "pgequiv"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var name, value string
	if err := admin.QueryRow(ctx, "SHOW STATS", pgx.QueryExecModeSimpleProtocol).Scan(&name, &value); err != nil || name != "tagged" || value != "1" {
		t.Fatalf("first stat %s=%s, %v", name, value, err)
	}
	mu.Lock()
	if reloads != 1 {
		t.Errorf("%d reloads", reloads)
	}
	mu.Unlock()
	// Wrong password, a user not allowed, and an unknown command.
	for _, tc := range []struct {
		env  []string
		user string
		cmd  string
		want string
	}{
		{[]string{"PGPASSWORD=wrong"}, pgtest.SuperUser, "SHOW STATS", "password authentication failed"},
		{nil, pgtest.MD5User, "SHOW STATS", "may not use the admin console"},
		{nil, pgtest.SuperUser, "DROP TABLE dogs", "unknown command"},
	} {
		cmd := exec.CommandContext(ctx, psql, args(tc.user, tc.cmd)...)
		cmd.Env = append(cmd.Environ(), append(append([]string(nil), env...), tc.env...)...)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s as %s: %v\n%s", tc.cmd, tc.user, err, out)
		}
	}
}

// TestJudgeCatalogEntryModes: a catalog entry's mode overrides the global
// one, and an entry for another database does not apply.
func TestJudgeCatalogEntryModes(t *testing.T) {
	set := annotateSettings(t)
	cat, err := tag.ParseCatalog([]byte(`
references:
  - id: strict
    reference: SELECT count(*) FROM dogs WHERE age > 5
    mode: enforce
  - id: elsewhere
    match: SELECT count(owner_id) FROM dogs WHERE age > 5
    reference: SELECT 1
    database: shop
`))
	if err != nil {
		t.Fatal(err)
	}
	set.Catalog = cat
	e := startJudgeProxy(t, set, JudgingOptions{})
	ctx := testCtx(t, 60*time.Second)
	conn, notices := e.connectNotices(t, ctx, kennelDB)
	strict := tag.Encode(tag.KV{Key: tag.KeyRefID, Value: "strict"})
	_, err = conn.Exec(ctx, "SELECT count(*), 1 FROM dogs WHERE age > 5 "+strict)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != SQLStateNotEquivalent || !strings.Contains(pgErr.Detail, "reference id: strict") {
		t.Fatalf("entry in enforce mode under a global annotate: %v", err)
	}
	if _, err := conn.Exec(ctx, countOwner+" "+strict); err != nil {
		t.Fatalf("equivalent query refused: %v", err)
	}
	if ns := notices(); len(ns) != 0 {
		t.Fatalf("enforce entry sent notices %q", ns)
	}
	// The match entry is for database shop: nothing happens in kennel,
	// and naming it by id there is an error the notice reports.
	if _, err := conn.Exec(ctx, countOwner); err != nil {
		t.Fatal(err)
	}
	if ns := notices(); len(ns) != 0 {
		t.Fatalf("another database's entry applied: %q", ns)
	}
	if _, err := conn.Exec(ctx, countOwner+" "+tag.Encode(tag.KV{Key: tag.KeyRefID, Value: "elsewhere"})); err != nil {
		t.Fatal(err)
	}
	if ns := notices(); len(ns) != 1 || !strings.Contains(ns[0], `is for database "shop"`) {
		t.Fatalf("notices %q", ns)
	}
}

// TestJudgeClientLeavesDuringDeferredNotice: a client that gives up on a
// query while the proxy holds its ReadyForQuery for a notice (pgconn sends
// a CancelRequest, then Terminate, and waits 15s for the server to close)
// does not keep the connection alive until the verdict timeout.
func TestJudgeClientLeavesDuringDeferredNotice(t *testing.T) {
	set := annotateSettings(t)
	set.VerdictTimeout = time.Minute
	e := startJudgeProxy(t, set, JudgingOptions{})
	release := make(chan struct{})
	defer close(release) // the judgement ends; the cleanup waits for it
	e.j.setTestingKnobs(judgingKnobs{beforeJudge: func(context.Context) { <-release }})
	ctx := testCtx(t, 60*time.Second)
	conn, err := pgconn.Connect(ctx, dbConnString(e.Host, e.Port, pgtest.SuperUser, "", kennelDB))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	qctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := conn.Exec(qctx, withComment(countOwner, countStar)).ReadAll(); err == nil {
		t.Fatal("the query returned before its notice was ready")
	}
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	defer wcancel()
	e.waitConnsEnd(t, wctx)
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("connection ended after %v, after the client's Terminate", took)
	}
}
