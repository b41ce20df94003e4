package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/eval/llmjudge"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/judging"
)

// configTestdata is package config's set of good and bad proxy.yaml files,
// which the wiring must accept and refuse as config alone does.
const configTestdata = "../../config/testdata"

// parseConfig parses and validates text as the wiring's loader does,
// component checks included.
func parseConfig(t *testing.T, text string) *config.Config {
	t.Helper()
	c, err := config.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(configChecks...); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestConfigFilesAtLoad: every good file loads and every bad one is
// refused at load, with its message, once the wiring's checks (those
// that need a component, such as the telemetry endpoint) run too.
func TestConfigFilesAtLoad(t *testing.T) {
	good, _ := filepath.Glob(configTestdata + "/good/*.yaml")
	if len(good) < 3 {
		t.Fatalf("only %d good files", len(good))
	}
	for _, f := range good {
		if _, err := loadConfigFile(f, nil); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	bad, _ := filepath.Glob(configTestdata + "/bad/*.yaml")
	own, _ := filepath.Glob("testdata/config/bad/*.yaml")
	if len(bad) < 10 || len(own) < 1 {
		t.Fatalf("only %d+%d bad files", len(bad), len(own))
	}
	for _, f := range append(bad, own...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		want, ok := strings.CutPrefix(first, "# error: ")
		if !ok {
			t.Fatalf("%s: first line must be '# error: <substring>'", f)
		}
		if _, err := loadConfigFile(f, nil); err == nil || !strings.Contains(err.Error(), want) ||
			!strings.HasPrefix(err.Error(), "config "+f+": ") {
			t.Errorf("%s: error %v, want one containing %q", f, err, want)
		}
	}
}

// TestJudgeSettings: every judge key reaches the judging settings, the
// schema and catalog files are read, and the admin console's options and
// SHOW CONFIG come out right.
func TestJudgeSettings(t *testing.T) {
	dir := filepath.Join(configTestdata, "good")
	c, err := loadConfigFile(filepath.Join(dir, "judge.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := judgeSettings(c, proxy.Upstream{Address: c.Upstream.Address})
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode != judging.ModeAnnotate || s.VerdictTimeout != time.Second || !s.EnforceUnknown || !s.LogLiterals ||
		len(s.Options.AcceptAssumptions) != 2 || s.RecentVerdicts != 50 || s.Options.GMN == nil {
		t.Fatalf("settings %+v", s)
	}
	if s.Schemas.Default == nil || s.Schemas.Default.Table("dogs") == nil || s.Schemas.ByDatabase["shop"] == nil {
		t.Fatalf("schemas not loaded: %+v", s.Schemas)
	}
	if in := s.Schemas.Introspect; in == nil || in.User != "pgequiv_introspect" || in.Password != "secret" || in.Timeout != 3*time.Second {
		t.Fatalf("introspection %+v", in)
	}
	if _, ok := s.Catalog.ByID("old-dogs"); !ok {
		t.Fatal("catalog not loaded")
	}
	a := adminOptions(c, &proxy.Console{})
	if a == nil || a.Password != "console-secret" || len(a.Users) != 2 || a.Database != proxy.DefaultAdminDatabase {
		t.Fatalf("admin %+v", a)
	}
	for _, kv := range configSettings(c) {
		if strings.Contains(kv[1], "secret") {
			t.Errorf("SHOW CONFIG shows a secret: %v", kv)
		}
	}

	// Missing files are errors at this stage (so a reload keeps the old
	// config).
	c.Schema.Databases["shop"] = []string{"../judge/missing.sql"}
	if _, err := judgeSettings(c, proxy.Upstream{}); err == nil || !strings.Contains(err.Error(), "schema.databases.shop") {
		t.Fatalf("missing DDL file: %v", err)
	}
	c.Schema.Databases = nil
	c.Catalog = "../../../planner/catalog/example.sql" // not a catalog
	if _, err := judgeSettings(c, proxy.Upstream{}); err == nil || !strings.Contains(err.Error(), "catalog") {
		t.Fatalf("bad catalog: %v", err)
	}

	c, err = loadConfigFile(filepath.Join(dir, "introspect-only.yaml"), func(k string) string {
		return map[string]string{config.EnvIntrospectPassword: "from-env"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := judgeSettings(c, proxy.Upstream{}); err != nil || s.Schemas.Introspect.Password != "from-env" || adminOptions(c, nil).Password != "" {
		t.Fatalf("introspect-only: %+v, %v", s, err)
	}
}

// TestConnectionBounds: the connection bounds reach both modes' options;
// in the file 0 turns a timeout off, which dbfree spells as negative.
func TestConnectionBounds(t *testing.T) {
	c := parseConfig(t, "upstream: none\nmax_client_conn: 50\nclient_idle_timeout: 0s\nclient_read_timeout: 5s\nmax_prepared_statements: 7\nmax_prepared_bytes: 1MiB\n")
	o, err := dbfreeOptions(c)
	if err != nil {
		t.Fatal(err)
	}
	if o.MaxClientConn != 50 || o.ClientIdleTimeout >= 0 || o.ClientReadTimeout != 5*time.Second ||
		o.MaxPreparedStatements != 7 || o.MaxPreparedBytes != 1<<20 {
		t.Fatalf("dbfree options: %+v", o)
	}
	if c.AdminDatabase() != "pgequiv_admin" {
		t.Errorf("database-free admin database %q", c.AdminDatabase())
	}
	c.Upstream.None, c.Upstream.Address = false, "127.0.0.1:5432"
	po, err := proxyOptions(c)
	if err != nil || po.MaxClientConn != 50 {
		t.Fatalf("proxy options: %+v, %v", po.MaxClientConn, err)
	}
}

// TestIsolationSettings: judge_workers and judge_memory_limit reach the
// worker pool, and SHOW CONFIG lists them.
func TestIsolationSettings(t *testing.T) {
	c, err := loadConfigFile(filepath.Join(configTestdata, "good", "isolation.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := judgePoolOptions(c, nil); o.Workers != 4 || o.MemoryLimit != 256<<20 {
		t.Errorf("pool options %+v", o)
	}
	got := map[string]string{}
	for _, kv := range configSettings(c) {
		got[kv[0]] = kv[1]
	}
	if got["judge_isolation"] != "none" || got["judge_workers"] != "4" || got["judge_memory_limit"] != "268435456" ||
		got["refute"] != "true" || got["refute_budget"] != "20ms" {
		t.Errorf("SHOW CONFIG rows: %v", got)
	}
}

// TestMaxQuerySize: max_query_size reaches the judge's options in both
// modes.
func TestMaxQuerySize(t *testing.T) {
	c := parseConfig(t, "upstream: none\nmax_query_size: 2KiB\n")
	o, err := dbfreeOptions(c)
	if err != nil || o.Judge.MaxQueryBytes != 2<<10 {
		t.Fatalf("database-free MaxQueryBytes %d, %v", o.Judge.MaxQueryBytes, err)
	}
	s, err := judgeSettings(c, proxy.Upstream{})
	if err != nil || s.Options.MaxQueryBytes != 2<<10 {
		t.Fatalf("relay MaxQueryBytes %d, %v", s.Options.MaxQueryBytes, err)
	}
}

// TestLLMJudgeAdviser: llm_judge, off by default, reaches the judge's
// options in both modes when set.
func TestLLMJudgeAdviser(t *testing.T) {
	s, err := judgeSettings(parseConfig(t, "upstream: none\n"), proxy.Upstream{})
	if err != nil || s.Options.Adviser != nil {
		t.Fatalf("default: adviser %v, err %v; want off", s.Options.Adviser, err)
	}
	c := parseConfig(t, "upstream: none\njudge_isolation: none\nllm_judge:\n  endpoint: http://127.0.0.1:8000/v1\n  model: qwen2.5-coder\n  samples: 5\n  timeout: 10s\n")
	if s, err = judgeSettings(c, proxy.Upstream{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Options.Adviser.(*llmjudge.Judge); !ok {
		t.Errorf("relay mode adviser %T, want *llmjudge.Judge", s.Options.Adviser)
	}
	d, err := dbfreeOptions(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Judge.Adviser.(*llmjudge.Judge); !ok {
		t.Errorf("database-free adviser %T, want *llmjudge.Judge", d.Judge.Adviser)
	}
}

// TestShippedProxyYAMLOptions: the shipped proxy.yaml runs database-free
// on the bundled example schema, without a password or catalog.
func TestShippedProxyYAMLOptions(t *testing.T) {
	c, err := loadConfigFile("../../proxy.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := dbfreeOptions(c)
	if err != nil || o.Schema.Table("dogs") == nil || o.Password != "" || o.Catalog != nil {
		t.Fatalf("database-free options: %+v, %v", o, err)
	}
}

func TestDBFreeSchemasFromFiles(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.sql")
	b := filepath.Join(dir, "b.sql")
	if err := os.WriteFile(a, []byte("CREATE TABLE parent (id int PRIMARY KEY)"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("CREATE TABLE child (id int PRIMARY KEY, parent_id int NOT NULL REFERENCES parent(id));"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := config.Parse([]byte("upstream: none\nschema:\n  files: [" + a + ", " + b + "]\n"))
	if err != nil {
		t.Fatal(err)
	}
	o, err := dbfreeOptions(c)
	if err != nil || o.Schema.Table("parent") == nil || o.Schema.Table("child") == nil || o.Schema.Table("dogs") != nil {
		t.Fatalf("schemas from files: %v", err)
	}
	c.Schema.Files = []string{filepath.Join(dir, "missing.sql")}
	if _, err := dbfreeOptions(c); err == nil || !strings.Contains(err.Error(), "missing.sql") {
		t.Fatalf("missing schema file: %v", err)
	}
	if err := os.WriteFile(a, []byte("CREATE TABLE ("), 0o600); err != nil {
		t.Fatal(err)
	}
	c.Schema.Files = []string{a}
	if _, err := dbfreeOptions(c); err == nil {
		t.Fatal("bad DDL accepted")
	}
}
