package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// TestModeOffHint (issue 37, item 7): a relay in mode off (the shipped
// proxy.yaml with only an upstream added) says at startup that tags are
// ignored, and they are: a tagged query gets no NOTICE. A relay that
// judges (annotate) does not say it, and does annotate; reloading it into
// mode off says it then, and the reload's line names the change. Database-free mode, which always judges, never
// says it.
func TestModeOffHint(t *testing.T) {
	pg := pgtest.New(t, pgtest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const ddl = "CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL);"
	if _, err := execOnce(ctx, pg.ConnString(pgtest.SuperUser, ""), ddl+"INSERT INTO t VALUES (1, 10);"); err != nil {
		t.Fatal(err)
	}
	const tagged = "SELECT count(v) FROM t /*pgequiv_ref='SELECT%20count(*)%20FROM%20t'*/"

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "schema.sql"), []byte(ddl), 0o600); err != nil {
		t.Fatal(err)
	}
	relay := func(mode string) string {
		return fmt.Sprintf("listen: 127.0.0.1:0\nupstream:\n  address: %s\n  tls_mode: disable\nlog_level: info\nshutdown_timeout: 5s\n"+
			"judge_isolation: none\nmode: %s\nschema:\n  files: [schema.sql]\n", pg.Addr(), mode)
	}
	shipped, err := filepath.Abs("../../proxy.yaml")
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name    string
		path    string            // config file; written from body when body is set
		body    string            //
		env     map[string]string // beside PGEQUIV_LISTEN=127.0.0.1:0
		dbFree  bool              // no tagged query through it
		hint    bool              // modeOffHint at startup
		notices int               // NOTICEs for the tagged query
		reload  string            // then reload into this file, which must log the hint
	}{
		{name: "shipped proxy.yaml with an upstream", path: shipped,
			env:  map[string]string{config.EnvUpstream: pg.Addr(), config.EnvUpstreamTLSMode: "disable"},
			hint: true, notices: 0},
		{name: "relay mode off", body: relay("off"), hint: true, notices: 0},
		{name: "relay mode annotate", body: relay("annotate"), hint: false, notices: 1, reload: relay("off")},
		{name: "shipped proxy.yaml, database-free", path: shipped, dbFree: true, hint: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			if tc.body != "" {
				path = filepath.Join(dir, "proxy.yaml")
				if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{config.EnvListen: "127.0.0.1:0"}
			for k, v := range tc.env {
				env[k] = v
			}
			var stderr syncBuffer
			reloads := make(chan error, 1)
			hup := make(chan os.Signal, 1)
			port, stop := serveOn(t, ctx, path, serveEnv{
				reload: hup, getenv: func(k string) string { return env[k] },
				stderr: &stderr, reloaded: func(err error) { reloads <- err },
			})
			// The startup lines are written before listening is reported.
			if got := strings.Contains(stderr.String(), modeOffHint); got != tc.hint {
				t.Errorf("startup log has the mode-off hint: %v, want %v; log:\n%s", got, tc.hint, stderr.String())
			}
			if !tc.dbFree {
				var notices []string
				cfg, err := pgconn.ParseConfig(pgtest.ConnString("127.0.0.1", port, pgtest.SuperUser, ""))
				if err != nil {
					t.Fatal(err)
				}
				cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Message) }
				conn, err := pgconn.ConnectConfig(ctx, cfg)
				if err != nil {
					t.Fatal(err)
				}
				_, err = conn.Exec(ctx, tagged).ReadAll()
				conn.Close(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(notices) != tc.notices {
					t.Errorf("tagged query: notices %q, want %d", notices, tc.notices)
				}
			}
			if tc.reload != "" {
				if err := os.WriteFile(path, []byte(tc.reload), 0o600); err != nil {
					t.Fatal(err)
				}
				hup <- os.Interrupt
				if err := <-reloads; err != nil {
					t.Fatalf("reload: %v", err)
				}
				if !strings.Contains(stderr.String(), modeOffHint) {
					t.Errorf("reload into mode off: no hint; log:\n%s", stderr.String())
				}
				// The reload says what it changed (TestReloadChanges has the cases).
				if !strings.Contains(stderr.String(), `msg="config reloaded" changed="mode: annotate -> off"`) {
					t.Errorf("reload: no line naming the change; log:\n%s", stderr.String())
				}
			}
			stop()
		})
	}
}
