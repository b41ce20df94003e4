package config

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	gmnmodel "github.com/pgequiv/pgequiv/gmn/model"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// SlogLevel returns the log level as a slog.Level.
func (c *Config) SlogLevel() slog.Level {
	var l slog.Level
	_ = l.UnmarshalText([]byte(c.LogLevel)) // validated
	return l
}

// ProxyOptions builds the proxy's options, reading the certificate files.
// Errors here (unreadable or invalid files) count as invalid config.
func (c *Config) ProxyOptions() (proxy.Options, error) {
	o := proxy.Options{
		Upstream: proxy.Upstream{
			Address:        c.Upstream.Address,
			TLSMode:        proxy.TLSMode(c.Upstream.TLSMode),
			ServerName:     c.Upstream.ServerName,
			ConnectTimeout: c.Upstream.ConnectTimeout,
		},
		MaxMessageSize:   int(c.MaxMessageSize),
		StartupTimeout:   c.StartupTimeout,
		MaxClientConn:    c.MaxClientConn,
		DisableFastRelay: !c.FastRelay,
	}
	if c.Upstream.CAFile != "" {
		pem, err := os.ReadFile(c.Upstream.CAFile)
		if err != nil {
			return o, fmt.Errorf("config: upstream.ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return o, fmt.Errorf("config: upstream.ca_file %s: no PEM certificates", c.Upstream.CAFile)
		}
		o.Upstream.RootCAs = pool
	}
	if c.TLS.Cert != "" {
		cert, err := tls.LoadX509KeyPair(c.TLS.Cert, c.TLS.Key)
		if err != nil {
			return o, fmt.Errorf("config: tls: %w", err)
		}
		o.ClientTLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	return o, nil
}

// path resolves a path from the file against the file's directory.
func (c *Config) path(p string) string {
	if filepath.IsAbs(p) || c.dir == "" {
		return p
	}
	return filepath.Join(c.dir, p)
}

// loadDDL reads and loads the concatenation of files.
func (c *Config) loadDDL(what string, files []string) (*catalog.Schema, error) {
	var ddl strings.Builder
	starts := make([]int, len(files))
	for i, f := range files {
		b, err := os.ReadFile(c.path(f))
		if err != nil {
			return nil, fmt.Errorf("config: %s: %w", what, err)
		}
		starts[i] = ddl.Len()
		ddl.Write(b)
		ddl.WriteString("\n;\n")
	}
	s, err := catalog.LoadDDL(ddl.String(), catalog.Postgres)
	if err != nil {
		return nil, ddlError(what, files, starts, ddl.String(), err)
	}
	return s, nil
}

// ddlError names the file, line and column of a syntax error in the
// concatenation text of files (each starting at starts[i]).
func ddlError(what string, files []string, starts []int, text string, err error) error {
	var se *catalog.SyntaxError
	if !errors.As(err, &se) || len(files) == 0 {
		return fmt.Errorf("config: %s: %w", what, err)
	}
	i := sort.Search(len(starts), func(i int) bool { return starts[i] > se.Offset }) - 1
	i = max(i, 0)
	p := catalog.Position(text[starts[i]:], se.Offset-starts[i], se.Msg)
	return fmt.Errorf("config: %s: %s:%d:%d: %s", what, files[i], p.Line, p.Column, se.Msg)
}

// JudgeSettings builds the judging observer's settings, reading the
// schema and catalog files. up is the proxy's upstream, which
// introspection connects to. Errors here count as invalid config.
func (c *Config) JudgeSettings(up proxy.Upstream) (proxy.JudgeSettings, error) {
	s := proxy.JudgeSettings{
		Mode:               proxy.JudgeMode(c.Mode),
		VerdictTimeout:     c.VerdictTimeout,
		EnforceUnknown:     c.EnforceUnknown,
		EnforceSideEffects: proxy.SideEffectsPolicy(c.EnforceSideEffects),
		LogLiterals:        c.Log.Literals,
		RecentVerdicts:     c.Admin.RecentVerdicts,
		Schemas:            proxy.SchemaSettings{RefreshInterval: c.Schema.RefreshInterval},
	}
	s.Options.MaxQueryBytes = int(c.MaxQuerySize)
	s.Options.Refute = c.RefuteOptions()
	for _, a := range c.AcceptAssumptions {
		s.Options.AcceptAssumptions = append(s.Options.AcceptAssumptions, equivalence.AssumptionKind(a))
	}
	if c.GMN {
		m, err := gmnmodel.Default()
		if err != nil {
			return s, fmt.Errorf("config: gmn: %w", err)
		}
		s.Options.GMN = m
	}
	adv, err := c.adviser()
	if err != nil {
		return s, err
	}
	s.Options.Adviser = adv
	if len(c.Schema.Files) > 0 {
		def, err := c.loadDDL("schema.files", c.Schema.Files)
		if err != nil {
			return s, err
		}
		s.Schemas.Default = def
	}
	if len(c.Schema.Databases) > 0 {
		s.Schemas.ByDatabase = map[string]*catalog.Schema{}
		for db, files := range c.Schema.Databases {
			schema, err := c.loadDDL("schema.databases."+db, files)
			if err != nil {
				return s, err
			}
			s.Schemas.ByDatabase[db] = schema
		}
	}
	if in := c.Schema.Introspect; in.User != "" {
		s.Schemas.Introspect = &proxy.Introspection{Upstream: up, User: in.User, Password: in.Password, Timeout: in.Timeout}
	}
	if c.Catalog != "" {
		cat, err := tag.LoadCatalog(c.path(c.Catalog))
		if err != nil {
			return s, fmt.Errorf("config: catalog: %w", err)
		}
		s.Catalog = cat
	}
	return s, nil
}

// AdminOptions returns the admin console's options with console, or nil
// when no admin users are configured.
func (c *Config) AdminOptions(console proxy.AdminConsole) *proxy.AdminOptions {
	if len(c.Admin.Users) == 0 {
		return nil
	}
	a := &proxy.AdminOptions{Users: c.Admin.Users, Console: console, Database: c.AdminDatabase(), RequireTLS: c.Admin.RequireTLS}
	if c.Admin.Auth == "password" {
		a.Password = c.Admin.Password
	}
	return a
}

// AdminDatabase is the admin console's database (see Admin.Database).
func (c *Config) AdminDatabase() string {
	switch {
	case c.Admin.Database != "":
		return c.Admin.Database
	case c.Upstream.None:
		return "pgequiv_admin"
	}
	return proxy.DefaultAdminDatabase
}

// Settings lists every setting as key/value pairs for the admin console's
// SHOW CONFIG; passwords are hidden.
func (c *Config) Settings() [][2]string {
	hide := func(s string) string {
		if s == "" {
			return ""
		}
		return "(hidden)"
	}
	list := func(l []string) string { return strings.Join(l, ",") }
	out := [][2]string{
		{"listen", c.Listen},
		{"log_format", c.LogFormat},
		{"log.verdicts", c.Log.Verdicts},
		{"upstream.address", c.Upstream.Address},
		{"upstream.tls_mode", c.Upstream.TLSMode},
		{"upstream.ca_file", c.Upstream.CAFile},
		{"upstream.server_name", c.Upstream.ServerName},
		{"upstream.connect_timeout", c.Upstream.ConnectTimeout.String()},
		{"tls.cert", c.TLS.Cert},
		{"tls.key", c.TLS.Key},
		{"max_message_size", strconv.FormatInt(int64(c.MaxMessageSize), 10)},
		{"shutdown_timeout", c.ShutdownTimeout.String()},
		{"startup_timeout", c.StartupTimeout.String()},
		{"max_client_conn", strconv.Itoa(c.MaxClientConn)},
		{"client_idle_timeout", c.ClientIdleTimeout.String()},
		{"client_read_timeout", c.ClientReadTimeout.String()},
		{"max_prepared_statements", strconv.Itoa(c.MaxPreparedStatements)},
		{"max_prepared_bytes", strconv.FormatInt(int64(c.MaxPreparedBytes), 10)},
		{"max_query_size", strconv.FormatInt(int64(c.MaxQuerySize), 10)},
		{"log_level", c.LogLevel},
		{"fast_relay", strconv.FormatBool(c.FastRelay)},
		{"mode", c.Mode},
		{"verdict_timeout", c.VerdictTimeout.String()},
		{"enforce_unknown", strconv.FormatBool(c.EnforceUnknown)},
		{"enforce_side_effects", c.EnforceSideEffects},
		{"accept_assumptions", list(c.AcceptAssumptions)},
		{"gmn", strconv.FormatBool(c.GMN)},
		{"refute", strconv.FormatBool(!c.RefuteOptions().Off)},
		{"refute_budget", refuteBudgetText(c.RefuteBudget)},
		{"judge_isolation", c.JudgeIsolation},
		{"judge_workers", strconv.Itoa(c.JudgeWorkers)},
		{"judge_memory_limit", strconv.FormatInt(int64(c.JudgeMemoryLimit), 10)},
		{"log.literals", strconv.FormatBool(c.Log.Literals)},
		{"verdict_log", c.VerdictLog},
		{"verdict_log_max_size", strconv.FormatInt(int64(c.VerdictLogMaxSize), 10)},
		{"schema.files", list(c.Schema.Files)},
		{"telemetry.endpoint", c.Telemetry.Endpoint},
		{"telemetry.protocol", c.Telemetry.Protocol},
		{"metrics_listen", c.MetricsListen},
	}
	dbs := make([]string, 0, len(c.Schema.Databases))
	for db := range c.Schema.Databases {
		dbs = append(dbs, db)
	}
	sort.Strings(dbs)
	for _, db := range dbs {
		out = append(out, [2]string{"schema.databases." + db, list(c.Schema.Databases[db])})
	}
	return append(out, [][2]string{
		{"schema.introspect.user", c.Schema.Introspect.User},
		{"schema.introspect.password", hide(c.Schema.Introspect.Password)},
		{"schema.introspect.timeout", c.Schema.Introspect.Timeout.String()},
		{"schema.refresh_interval", c.Schema.RefreshInterval.String()},
		{"catalog", c.Catalog},
		{"admin.users", list(c.Admin.Users)},
		{"admin.auth", c.Admin.Auth},
		{"admin.password", hide(c.Admin.Password)},
		{"admin.recent_verdicts", strconv.Itoa(c.Admin.RecentVerdicts)},
		{"admin.database", c.AdminDatabase()},
		{"admin.require_tls", strconv.FormatBool(c.Admin.RequireTLS)},
		{"llm_judge.endpoint", c.LLMJudge.Endpoint},
		{"llm_judge.model", c.LLMJudge.Model},
		{"llm_judge.api_key_env", c.LLMJudge.APIKeyEnv},
		{"llm_judge.samples", strconv.Itoa(c.LLMJudge.Samples)},
		{"llm_judge.timeout", c.LLMJudge.Timeout.String()},
	}...)
}

// VerdictLogPath is verdict_log resolved against the file's directory;
// empty when there is none.
func (c *Config) VerdictLogPath() string {
	if c.VerdictLog == "" {
		return ""
	}
	return c.path(c.VerdictLog)
}

// refuteBudgetText is refute_budget as SHOW CONFIG shows it: the default
// spelled out rather than 0s.
func refuteBudgetText(d time.Duration) string {
	if d == 0 {
		return equivalence.DefaultRefuteBudget.String()
	}
	return d.String()
}
