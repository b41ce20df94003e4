package proxy

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// TestConnectDisconnectLogLines: at info level a relayed session logs one
// line when it starts relaying and one when the client leaves, each with
// the connection's id, client address, user and database (the lines
// operators of PgBouncer count sessions from); at warn level neither.
func TestConnectDisconnectLogLines(t *testing.T) {
	for _, tc := range []struct {
		level slog.Level
		want  bool
	}{{slog.LevelInfo, true}, {slog.LevelWarn, false}} {
		t.Run(tc.level.String(), func(t *testing.T) {
			ctx := testCtx(t, 30*time.Second)
			var log lockedBuffer
			opts := upstreamOpts()
			opts.Logger = slog.New(slog.NewJSONHandler(&log, &slog.HandlerOptions{Level: tc.level}))
			p := startProxy(t, opts)
			cfg, err := pgx.ParseConfig(p.connString(pgtest.SuperUser, ""))
			if err != nil {
				t.Fatal(err)
			}
			cfg.RuntimeParams["application_name"] = "lifecycle-test"
			conn, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			var one int
			if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
				t.Fatal(err)
			}
			if err := conn.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if err := p.waitConnEnd(t, ctx); err != nil {
				t.Fatalf("connection ended with %v", err)
			}
			lines := map[string]map[string]any{}
			for _, l := range strings.Split(strings.TrimSpace(log.String()), "\n") {
				var rec map[string]any
				if l == "" {
					continue
				}
				if err := json.Unmarshal([]byte(l), &rec); err != nil {
					t.Fatalf("log line %q: %v", l, err)
				}
				lines[rec["msg"].(string)] = rec
			}
			for _, msg := range []string{"client connected", "client disconnected"} {
				rec, ok := lines[msg]
				if ok != tc.want {
					t.Fatalf("%s: logged %v at level %v, want %v\n%s", msg, ok, tc.level, tc.want, log.String())
				}
				if !ok {
					continue
				}
				if rec["level"] != "INFO" || rec["user"] != pgtest.SuperUser || rec["database"] != pgtest.Database ||
					rec["conn"] == nil || !strings.HasPrefix(rec["client"].(string), "127.0.0.1:") {
					t.Errorf("%s: %v", msg, rec)
				}
			}
			if tc.want {
				if a := lines["client connected"]["application_name"]; a != "lifecycle-test" {
					t.Errorf("connect line application_name %v", a)
				}
				if _, err := time.ParseDuration(lines["client disconnected"]["age"].(string)); err != nil {
					t.Errorf("disconnect line age: %v", err)
				}
			}
		})
	}
}
