package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestGoodFiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/good/*.yaml")
	if len(files) < 3 {
		t.Fatalf("only %d good files", len(files))
	}
	for _, f := range files {
		if _, err := Load(f, nil); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestBadFiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/bad/*.yaml")
	if len(files) < 10 {
		t.Fatalf("only %d bad files", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		want, ok := strings.CutPrefix(first, "# error: ")
		if !ok {
			t.Fatalf("%s: first line must be '# error: <substring>'", f)
		}
		_, err = Load(f, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", f, err, want)
		}
		// The file's words, not Go's: no type names, no YAML tags.
		for _, internal := range []string{"in type ", "config.Config", "!!", "time.Duration", "cannot unmarshal"} {
			if err != nil && strings.Contains(err.Error(), internal) {
				t.Errorf("%s: error %v shows Go internals (%q)", f, err, internal)
			}
		}
	}
}

func TestDefaultsAndFullFile(t *testing.T) {
	c, err := Load("testdata/good/minimal.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	d := Default()
	if c.Listen != d.Listen || c.Upstream.TLSMode != "prefer" || c.MaxMessageSize != 64<<20 ||
		c.ShutdownTimeout != 30*time.Second || c.Mode != "off" || c.LogLevel != "info" || !c.FastRelay {
		t.Fatalf("defaults not applied: %+v", c)
	}
	c, err = Load("testdata/good/full.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "0.0.0.0:7432" || c.Upstream.ServerName != "db.example.com" || c.Upstream.ConnectTimeout != 3*time.Second ||
		c.MaxMessageSize != 16<<20 || c.StartupTimeout != 20*time.Second || c.VerdictTimeout != 500*time.Millisecond ||
		c.FastRelay {
		t.Fatalf("full file misread: %+v", c)
	}
}

func TestEnvOverrides(t *testing.T) {
	env := map[string]string{
		EnvListen:          "127.0.0.1:9999",
		EnvUpstream:        "10.0.0.1:5432",
		EnvUpstreamTLSMode: "require",
	}
	c, err := Load("testdata/bad/missing-upstream.yaml", func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("env should supply the missing upstream: %v", err)
	}
	if c.Listen != "127.0.0.1:9999" || c.Upstream.Address != "10.0.0.1:5432" || c.Upstream.TLSMode != "require" {
		t.Fatalf("env not applied: %+v", c)
	}
	// An invalid override is caught by validation.
	env[EnvUpstreamTLSMode] = "sometimes"
	if _, err := Load("testdata/good/minimal.yaml", func(k string) string { return env[k] }); err == nil {
		t.Fatal("invalid env override accepted")
	}
}

func TestValidateReportsAllProblems(t *testing.T) {
	c := Default()
	c.Listen = "nope"
	c.LogLevel = "loud"
	err := c.Validate()
	if err == nil {
		t.Fatal("invalid config accepted")
	}
	for _, want := range []string{"listen:", "upstream.address: required", "log_level:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]ByteSize{"0": 0, "1024": 1024, "1KiB": 1024, "10 MB": 10e6, "64MiB": 64 << 20, "1GiB": 1 << 30, "7B": 7} {
		got, err := ParseByteSize(in)
		if err != nil || got != want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "-1", "1.5MiB", "1TiB", "99999999999999999GiB"} {
		if _, err := ParseByteSize(in); err == nil {
			t.Errorf("ParseByteSize(%q) accepted", in)
		}
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.yaml")
	for _, file := range files {
		data, _ := os.ReadFile(file)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			return
		}
		_ = c.Validate() // must not panic
	})
}

// TestJudgeKeys: every judge key is read as written; relative paths
// resolve against the file's directory.
func TestJudgeKeys(t *testing.T) {
	c, err := Load("testdata/good/judge.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != "annotate" || c.VerdictTimeout != time.Second || !c.EnforceUnknown || !c.Log.Literals ||
		len(c.AcceptAssumptions) != 2 || c.Admin.RecentVerdicts != 50 || !c.GMN || !c.RefuteOn() {
		t.Fatalf("judge keys %+v", c)
	}
	if c.VerdictLogPath() != filepath.Join("testdata", "good", "verdicts.jsonl") || c.VerdictLogMaxSize != 1<<20 {
		t.Errorf("verdict_log %q, max size %d", c.VerdictLogPath(), c.VerdictLogMaxSize)
	}
	if c.FilePath(c.Catalog) != filepath.Join("testdata", "judge", "catalog.yaml") || c.FilePath("/abs.sql") != "/abs.sql" {
		t.Errorf("catalog path %q", c.FilePath(c.Catalog))
	}
	if len(c.Schema.Files) != 1 || len(c.Schema.Databases["shop"]) != 1 {
		t.Fatalf("schema %+v", c.Schema)
	}
	if in := c.Schema.Introspect; in.User != "pgequiv_introspect" || in.Password != "secret" || in.Timeout != 3*time.Second {
		t.Fatalf("introspection %+v", in)
	}
	if a := c.Admin; a.Password != "console-secret" || len(a.Users) != 2 || a.Auth != "password" {
		t.Fatalf("admin %+v", a)
	}

	c, err = Load("testdata/good/introspect-only.yaml", func(k string) string {
		return map[string]string{EnvIntrospectPassword: "from-env"}[k]
	})
	if err != nil || c.Schema.Introspect.Password != "from-env" {
		t.Fatalf("introspect-only: %+v, %v", c, err)
	}
	off := false
	if c.Refute = &off; c.RefuteOn() {
		t.Error("refute: false reads as on")
	}
}

// TestChecks: a Check's error is reported with Validate's, after them and
// under the file's name, and only at load.
func TestChecks(t *testing.T) {
	errCheck := errors.New("telemetry: endpoint \"x\": want a URL")
	var saw *Config
	check := func(c *Config) error { saw = c; return errCheck }
	if _, err := Load("testdata/good/minimal.yaml", nil, check); !errors.Is(err, errCheck) ||
		err.Error() != "config testdata/good/minimal.yaml: "+errCheck.Error() || saw == nil {
		t.Fatalf("check error %v", err)
	}
	c := Default()
	c.LogLevel = "loud"
	err := c.Validate(check)
	if msg := err.Error(); !strings.HasSuffix(msg, "\n"+errCheck.Error()) || !strings.Contains(msg, "log_level:") {
		t.Fatalf("Validate with a check: %q", msg)
	}
	if _, err := Load("testdata/good/minimal.yaml", nil, func(*Config) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

// TestConnectionBounds: the connection bounds' defaults, and a file's
// values (0 turns a timeout off).
func TestConnectionBounds(t *testing.T) {
	d := Default()
	if d.MaxClientConn != 1000 || d.ClientIdleTimeout != time.Hour || d.ClientReadTimeout != time.Minute ||
		d.MaxPreparedStatements != 10000 || d.MaxPreparedBytes != 64<<20 {
		t.Fatalf("defaults: %+v", d)
	}
	c, err := Parse([]byte("upstream: none\nmax_client_conn: 50\nclient_idle_timeout: 0s\nclient_read_timeout: 5s\nmax_prepared_statements: 7\nmax_prepared_bytes: 1MiB\n"))
	if err != nil {
		t.Fatal(err)
	}
	c.applyEnv(func(string) string { return "" })
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.MaxClientConn != 50 || c.ClientIdleTimeout != 0 || c.ClientReadTimeout != 5*time.Second ||
		c.MaxPreparedStatements != 7 || c.MaxPreparedBytes != 1<<20 {
		t.Fatalf("connection bounds: %+v", c)
	}
}

func TestIsolationKeys(t *testing.T) {
	d := Default()
	if d.JudgeIsolation != "process" || d.JudgeWorkers != 0 || d.JudgeMemoryLimit != 1<<30 {
		t.Fatalf("isolation defaults: %q %d %d", d.JudgeIsolation, d.JudgeWorkers, d.JudgeMemoryLimit)
	}
	c, err := Load("testdata/good/isolation.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.JudgeIsolation != "none" || c.JudgeWorkers != 4 || c.JudgeMemoryLimit != 256<<20 {
		t.Fatalf("isolation keys: %q %d %d", c.JudgeIsolation, c.JudgeWorkers, c.JudgeMemoryLimit)
	}
	next := *c
	if c.IsolationChanged(&next) {
		t.Error("unchanged isolation reported as changed")
	}
	next.JudgeWorkers = 2
	if !c.IsolationChanged(&next) {
		t.Error("judge_workers change not reported")
	}
}

// TestMaxQuerySize: max_query_size is read as a size, and out-of-range
// values are refused.
func TestMaxQuerySize(t *testing.T) {
	if d := Default(); d.MaxQuerySize != 1<<20 {
		t.Fatalf("default max_query_size %d", d.MaxQuerySize)
	}
	c, err := Parse([]byte("upstream: none\nmax_query_size: 2KiB\n"))
	if err != nil {
		t.Fatal(err)
	}
	c.applyEnv(func(string) string { return "" })
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.MaxQuerySize != 2<<10 {
		t.Fatalf("max_query_size %d", c.MaxQuerySize)
	}
	for _, bad := range []string{"max_query_size: 10\n", "max_query_size: 1GiB\n"} {
		c, err := Parse([]byte("upstream: none\n" + bad))
		if err == nil {
			c.applyEnv(func(string) string { return "" })
			err = c.Validate()
		}
		if err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
