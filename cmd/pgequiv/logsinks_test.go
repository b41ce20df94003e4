package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
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

// TestLogSinks: in mode log the JSON verdict lines go to log.verdicts (a
// file here; standard output by default), never into the operational log
// on stderr, and log_format: json makes every line of that log JSON.
func TestLogSinks(t *testing.T) {
	pg := pgtest.New(t, pgtest.Options{})
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for name, body := range map[string]string{
		"schema.sql": "CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL);",
		"proxy.yaml": fmt.Sprintf("listen: 127.0.0.1:0\nupstream:\n  address: %s\n  tls_mode: disable\nlog_level: debug\nlog_format: json\n"+
			"mode: log\nschema:\n  files: [schema.sql]\nlog:\n  verdicts: verdicts.jsonl\nshutdown_timeout: 2s\n", pg.Addr()),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := execOnce(ctx, pg.ConnString(pgtest.SuperUser, ""), "CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncBuffer
	port, stop := serveOn(t, ctx, filepath.Join(dir, "proxy.yaml"), serveEnv{
		reload: make(chan os.Signal), getenv: func(string) string { return "" },
		stdout: &stdout, stderr: &stderr,
	})
	if _, err := execOnce(ctx, pgtest.ConnString("127.0.0.1", port, pgtest.SuperUser, ""),
		"SELECT count(v) FROM t /*pgequiv_ref='SELECT%20count(*)%20FROM%20t'*/"); err != nil {
		t.Fatal(err)
	}
	stop() // the verdict is written before serve returns (judging.Wait)

	b, err := os.ReadFile(filepath.Join(dir, "verdicts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(b), &v); err != nil || v["msg"] != "pgequiv verdict" || v["label"] != "equivalent" {
		t.Fatalf("log.verdicts file: %v %q", err, b)
	}
	if stdout.String() != "" {
		t.Errorf("stdout has %q; the verdicts go to the file", stdout.String())
	}
	lines := 0
	sc := bufio.NewScanner(strings.NewReader(stderr.String()))
	for sc.Scan() {
		lines++
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Errorf("log_format json: stderr line is not JSON: %q", sc.Text())
		}
		if m["msg"] == "pgequiv verdict" {
			t.Errorf("a verdict line in the operational log: %q", sc.Text())
		}
	}
	if lines < 2 {
		t.Errorf("stderr has %d lines: %q", lines, stderr.String())
	}
}

// execOnce runs sql on a new connection and closes it.
func execOnce(ctx context.Context, connString, sql string) ([]*pgconn.Result, error) {
	c, err := pgconn.Connect(ctx, connString)
	if err != nil {
		return nil, err
	}
	defer c.Close(ctx)
	return c.Exec(ctx, sql).ReadAll()
}
