package judging

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// The tests' judging proxy: in front of a throwaway PostgreSQL that
// holds the kennel database, and what the tests read back from it
// (notices, statistics, log lines).

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
		kennelErr = createDatabase(kennelDB, catalog.ExampleDDL()+`
INSERT INTO owners VALUES (1, 'Ann', 'Lee', 'Oslo', 'ann@example.com');
INSERT INTO dogs (dog_id, owner_id, name, age) VALUES (1, 1, 'Rex', 7), (2, 1, 'Fido', 3);`)
	})
	if kennelErr != nil {
		t.Fatalf("kennel database: %v", kennelErr)
	}
}

// createDatabase creates database db on the test server and runs sql in
// it.
func createDatabase(db, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		return err
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, dbConnString(pg.Host, pg.Port, pgtest.SuperUser, "", db))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
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

func statMap(j *Judging) map[string]uint64 {
	m := map[string]uint64{}
	for _, s := range j.Stats() {
		m[s.Name] = s.Value
	}
	return m
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
