// Package config loads and validates pgequiv's proxy.yaml.
//
// It is a leaf: it turns the file into plain data and imports nothing
// from the rest of pgequiv. Building components from that data (the
// proxy's options, the judge, schemas, telemetry) is cmd/pgequiv's
// wiring, which also supplies, as Checks, the validations that need a
// component.
//
// Parsing is strict: an unknown key anywhere is an error naming the key and
// its line. Absent keys take the defaults of Default. Some settings can be
// overridden from the environment (see Env*), so that addresses and file
// paths need not be written into the file.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Config is the whole proxy.yaml.
type Config struct {
	// Listen is the client-facing address, host:port.
	Listen   string   `yaml:"listen"`
	Upstream Upstream `yaml:"upstream"`
	// TLS is the certificate offered to clients; both or neither.
	TLS TLS `yaml:"tls"`
	// MaxMessageSize bounds each client message ("64MiB", or bytes).
	MaxMessageSize ByteSize `yaml:"max_message_size"`
	// ShutdownTimeout is how long shutdown waits for clients to leave.
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout"`
	// StartupTimeout bounds each client's startup and authentication.
	StartupTimeout time.Duration `yaml:"startup_timeout"`
	// MaxClientConn bounds the client connections served at once (both
	// modes); a client over it gets FATAL 53300 "sorry, too many clients
	// already".
	MaxClientConn int `yaml:"max_client_conn"`
	// ClientIdleTimeout ends, with FATAL 57P05, a database-free connection
	// whose client sends nothing for this long after startup; 0 means
	// never.
	ClientIdleTimeout time.Duration `yaml:"client_idle_timeout"`
	// ClientReadTimeout bounds how long a message to a database-free
	// endpoint may take to arrive once it has started; 0 means no bound.
	ClientReadTimeout time.Duration `yaml:"client_read_timeout"`
	// MaxPreparedStatements bounds a database-free connection's named
	// prepared statements, and separately its open portals.
	MaxPreparedStatements int `yaml:"max_prepared_statements"`
	// MaxPreparedBytes bounds what a database-free connection's prepared
	// statements and portals hold (texts and bound parameters).
	MaxPreparedBytes ByteSize `yaml:"max_prepared_bytes"`
	// MaxQuerySize bounds the text of a query (reference or candidate) the
	// judge takes on; a longer one gets an unknown verdict "too large to
	// judge" at once, in both modes.
	MaxQuerySize ByteSize `yaml:"max_query_size"`
	// LogLevel is debug, info, warn or error.
	LogLevel string `yaml:"log_level"`
	// LogFormat is text (logfmt) or json, for the operational log on
	// stderr.
	LogFormat string `yaml:"log_format"`
	// FastRelay relays connections without TLS on shared event loops
	// (Linux) until a statement needs the judge; false keeps every
	// connection on its own goroutines.
	FastRelay bool `yaml:"fast_relay"`

	// The judge's settings (see docs/proxy.md).

	// Mode is off, annotate (a NOTICE with the verdict), log (a JSON line
	// per verdict) or enforce (refuse what is not proved equivalent).
	Mode string `yaml:"mode"`
	// VerdictTimeout bounds one judgement.
	VerdictTimeout time.Duration `yaml:"verdict_timeout"`
	// EnforceUnknown makes enforce mode refuse unknown verdicts (and
	// timeouts and queries that cannot be judged) too.
	EnforceUnknown bool `yaml:"enforce_unknown"`
	// EnforceSideEffects is what enforce mode does with a statement that
	// has a reference but side effects (data change, DDL, DO, CALL, COPY,
	// SELECT INTO, data-modifying WITH), which is never equivalent:
	// refuse (PGQ02) or forward unjudged.
	EnforceSideEffects string `yaml:"enforce_side_effects"`
	// AcceptAssumptions lists assumption kinds under which a proof counts
	// as a pass in enforce mode: non_empty, foreign_key_holds,
	// primary_key_not_null, same_spelling, not_null (the last also lets through a
	// not_equivalent verdict whose counterexample needs a NULL, when the
	// pair is proved with the named columns NOT NULL).
	AcceptAssumptions []string `yaml:"accept_assumptions"`
	// GMN adds the shipped graph matching network's similarity to every
	// verdict's score (gmn/MODEL_CARD.md). Proved labels stay rule-decided;
	// the network ranks unknown verdicts as likely equivalent or not. It
	// costs about 1 ms of CPU per pair not judged before.
	GMN bool `yaml:"gmn"`
	// Refute searches for a counterexample database on every pair not
	// proved equivalent (docs/refuter.md); nil means true.
	Refute *bool `yaml:"refute"`
	// RefuteBudget bounds that search per pair; 0 means 20ms.
	RefuteBudget time.Duration `yaml:"refute_budget"`
	// JudgeIsolation is process (default: judgements run in supervised
	// worker processes, so that a fatal error in the judge costs one
	// verdict and not the proxy) or none (in the proxy's own process).
	JudgeIsolation string `yaml:"judge_isolation"`
	// JudgeWorkers is the number of judge worker processes, which also
	// bounds concurrent judgements; 0 means the number of CPUs.
	JudgeWorkers int `yaml:"judge_workers"`
	// JudgeMemoryLimit bounds each judge worker's resident memory; a worker
	// over it is killed and its verdict is an error.
	JudgeMemoryLimit ByteSize `yaml:"judge_memory_limit"`
	// Log configures the verdict log.
	Log Log `yaml:"log"`
	// Schema says where each database's schema comes from.
	Schema Schema `yaml:"schema"`
	// Catalog is a reference catalog file (see proxy/tag).
	Catalog string `yaml:"catalog"`
	// VerdictLog is a JSON Lines file every verdict is appended to (relay
	// mode), read back at start so that SHOW VERDICTS and SHOW
	// DIVERGENCES survive a restart; empty: none. Changes need a restart.
	VerdictLog string `yaml:"verdict_log"`
	// VerdictLogMaxSize bounds the verdict log; past it the file becomes
	// VerdictLog.1 (replacing an older one) and a new one starts.
	VerdictLogMaxSize ByteSize `yaml:"verdict_log_max_size"`
	// Password is what clients must give in database-free mode (SCRAM);
	// empty means trust. Unused when relaying to an upstream.
	Password string `yaml:"password"`
	// Admin configures the admin console.
	Admin Admin `yaml:"admin"`
	// LLMJudge is the optional LLM second opinion on unknown verdicts.
	LLMJudge LLMJudge `yaml:"llm_judge"`
	// Telemetry: OTLP export (config/telemetry.go, docs/telemetry.md).
	Telemetry Telemetry `yaml:"telemetry"`
	// MetricsListen serves Prometheus /metrics on host:port; empty: off.
	MetricsListen string `yaml:"metrics_listen"`

	// dir is the config file's directory; relative paths are read from it.
	dir string
}

// Log configures verdict logging.
type Log struct {
	// Literals keeps string and number literals in logged SQL and
	// differences; by default they are replaced with ?.
	Literals bool `yaml:"literals"`
	// Verdicts is where mode log writes its JSON verdict lines: stdout
	// (default), stderr (with the text log, as before), or a file path
	// (relative to the config file), appended to.
	Verdicts string `yaml:"verdicts"`
}

// Schema says where the schema of each database comes from: DDL files,
// else introspection of the upstream's catalog.
type Schema struct {
	// Files are DDL files for every database not in Databases.
	Files []string `yaml:"files"`
	// Databases maps a database name to its own DDL files.
	Databases map[string][]string `yaml:"databases"`
	// Introspect reads the schema of databases without files from the
	// upstream.
	Introspect Introspect `yaml:"introspect"`
	// RefreshInterval re-reads an introspected schema this long after it
	// was read (on next use); 0 means only after DDL or a reload.
	RefreshInterval time.Duration `yaml:"refresh_interval"`
}

// Introspect is the role the proxy reads pg_catalog as.
type Introspect struct {
	// User enables introspection; empty turns it off.
	User string `yaml:"user"`
	// Password (or PGEQUIV_INTROSPECT_PASSWORD).
	Password string        `yaml:"password"`
	Timeout  time.Duration `yaml:"timeout"`
}

// Admin configures the admin console on the virtual database pgequiv.
type Admin struct {
	// Users may connect; empty disables the console.
	Users []string `yaml:"users"`
	// Auth is password (SCRAM-SHA-256, failed logins throttled per
	// source address) or trust.
	Auth string `yaml:"auth"`
	// Password (or PGEQUIV_ADMIN_PASSWORD) for auth: password.
	Password string `yaml:"password"`
	// RecentVerdicts bounds SHOW VERDICTS.
	RecentVerdicts int `yaml:"recent_verdicts"`
	// RequireTLS refuses console connections without TLS (needs tls.cert
	// and tls.key).
	RequireTLS bool `yaml:"require_tls"`
	// Database is the console's virtual database; empty means pgequiv
	// with an upstream and pgequiv_admin in database-free mode (whose
	// clients may use any database name, pgequiv in the docs).
	Database string `yaml:"database"`
}

// Upstream is the PostgreSQL server behind the proxy.
type Upstream struct {
	// None is set by "upstream: none": no server, pgequiv answers
	// pgequiv.check(...) and tagged queries itself (database-free mode).
	None    bool   `yaml:"-"`
	Address string `yaml:"address"`
	// TLSMode is disable, prefer, require or verify-full.
	TLSMode string `yaml:"tls_mode"`
	// CAFile holds PEM roots for verify-full; empty means system roots.
	CAFile string `yaml:"ca_file"`
	// ServerName is verified under verify-full instead of the address host.
	ServerName     string        `yaml:"server_name"`
	ConnectTimeout time.Duration `yaml:"connect_timeout"`
}

// TLS names a certificate and key file, PEM encoded.
type TLS struct {
	Cert string `yaml:"cert"`
	Key  string `yaml:"key"`
}

// Environment variables that override the file.
const (
	EnvListen          = "PGEQUIV_LISTEN"
	EnvUpstream        = "PGEQUIV_UPSTREAM"
	EnvUpstreamTLSMode = "PGEQUIV_UPSTREAM_TLS_MODE"
	EnvUpstreamCAFile  = "PGEQUIV_UPSTREAM_CA_FILE"
	EnvTLSCert         = "PGEQUIV_TLS_CERT"
	EnvTLSKey          = "PGEQUIV_TLS_KEY"
	EnvPassword        = "PGEQUIV_PASSWORD"
	// EnvIntrospectPassword is schema.introspect.password.
	EnvIntrospectPassword = "PGEQUIV_INTROSPECT_PASSWORD"
	// EnvAdminPassword is admin.password.
	EnvAdminPassword = "PGEQUIV_ADMIN_PASSWORD"
)

// DefaultListen is listen's default. Its port is no other PostgreSQL
// service's default (5432 is PostgreSQL's; 6432 PgBouncer's, pgcat's and
// Odyssey's; 6543 Supavisor's; 9999 Pgpool-II's), so that the README's
// serve command binds on a host that runs any of them (issue 37).
const DefaultListen = "127.0.0.1:15432"

// Default returns the configuration used for keys the file leaves out.
func Default() Config {
	return Config{
		Listen: DefaultListen,
		Upstream: Upstream{
			TLSMode:        "prefer",
			ConnectTimeout: 10 * time.Second,
		},
		MaxMessageSize:  64 << 20,
		ShutdownTimeout: 30 * time.Second,
		StartupTimeout:  60 * time.Second,
		// See docs/database-free.md for why these bounds.
		MaxClientConn:         1000,
		ClientIdleTimeout:     time.Hour,
		ClientReadTimeout:     time.Minute,
		MaxPreparedStatements: 10000,
		MaxPreparedBytes:      64 << 20,
		MaxQuerySize:          1 << 20,
		LogLevel:              "info",
		LogFormat:             "text",
		Log:                   Log{Verdicts: "stdout"},
		FastRelay:             true,
		Mode:                  "off",
		VerdictTimeout:        2 * time.Second,
		JudgeIsolation:        "process",
		EnforceSideEffects:    "refuse",
		JudgeMemoryLimit:      1 << 30,
		VerdictLogMaxSize:     64 << 20,
		Schema: Schema{
			Introspect:      Introspect{Timeout: 10 * time.Second},
			RefreshInterval: 5 * time.Minute,
		},
		Admin:    Admin{Auth: "password", RecentVerdicts: 256},
		LLMJudge: defaultLLMJudge(),
	}
}

// A Check is a validation that needs a component this package does not
// import (the wiring supplies it). Its error is reported with Validate's,
// after them, so a file it refuses is refused at load like any other.
type Check func(*Config) error

// Load reads, parses, applies environment overrides from getenv (nil means
// none) and validates the file at path, running checks after Validate's
// own.
func Load(path string, getenv func(string) string, checks ...Check) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cfg, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	cfg.dir = filepath.Dir(path)
	if getenv != nil {
		cfg.applyEnv(getenv)
	}
	if err := cfg.Validate(checks...); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// Parse decodes one YAML document strictly over Default. It does not
// validate; Load does.
func Parse(data []byte) (*Config, error) {
	cfg := Default()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		return nil, friendlyYAMLError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one YAML document")
	}
	return &cfg, nil
}

func (c *Config) applyEnv(getenv func(string) string) {
	for env, dst := range map[string]*string{
		EnvListen:             &c.Listen,
		EnvUpstream:           &c.Upstream.Address,
		EnvUpstreamTLSMode:    &c.Upstream.TLSMode,
		EnvUpstreamCAFile:     &c.Upstream.CAFile,
		EnvTLSCert:            &c.TLS.Cert,
		EnvTLSKey:             &c.TLS.Key,
		EnvIntrospectPassword: &c.Schema.Introspect.Password,
		EnvAdminPassword:      &c.Admin.Password,
		EnvPassword:           &c.Password,
	} {
		if v := getenv(env); v != "" {
			*dst = v
		}
	}
	switch a := c.Upstream.Address; {
	case a == UpstreamNone:
		c.Upstream.None, c.Upstream.Address = true, ""
	case a != "": // an address from the environment overrides "upstream: none"
		c.Upstream.None = false
	}
}

// checkHostPort checks a host:port address as the listener or dialer will
// read it, so that a port such as 99999 is refused with the rest of the
// file rather than when workers have started.
func checkHostPort(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("is not host:port")
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("has port %q, not a number in 0..65535", port)
	}
	return nil
}

// Validate checks every field and returns all problems at once, those of
// checks last.
func (c *Config) Validate(checks ...Check) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if err := checkHostPort(c.Listen); err != nil {
		bad("listen: %q %v", c.Listen, err)
	}
	errs = append(errs, c.LLMJudge.validate(c)...)
	switch {
	case c.Upstream.None:
	case c.Upstream.Address == "":
		bad("upstream.address: required (or set %s)", EnvUpstream)
	default:
		if err := checkHostPort(c.Upstream.Address); err != nil {
			bad("upstream.address: %q %v", c.Upstream.Address, err)
		}
	}
	switch c.Upstream.TLSMode {
	case "disable", "prefer", "require", "verify-full":
	default:
		bad("upstream.tls_mode: %q is not one of disable, prefer, require, verify-full", c.Upstream.TLSMode)
	}
	if c.Upstream.CAFile != "" && c.Upstream.TLSMode != "verify-full" {
		bad("upstream.ca_file: only used with tls_mode verify-full")
	}
	if c.Upstream.ConnectTimeout <= 0 {
		bad("upstream.connect_timeout: must be positive")
	}
	if (c.TLS.Cert == "") != (c.TLS.Key == "") {
		bad("tls: cert and key must be given together")
	}
	if c.MaxMessageSize < 1<<10 || c.MaxMessageSize > 1<<30 {
		bad("max_message_size: %d is outside 1KiB..1GiB", c.MaxMessageSize)
	}
	if c.ShutdownTimeout < 0 {
		bad("shutdown_timeout: must not be negative")
	}
	if c.StartupTimeout <= 0 {
		bad("startup_timeout: must be positive")
	}
	if c.MaxClientConn < 1 || c.MaxClientConn > 1<<20 {
		bad("max_client_conn: %d is outside 1..1048576", c.MaxClientConn)
	}
	if c.ClientIdleTimeout < 0 {
		bad("client_idle_timeout: must not be negative (0 turns it off)")
	}
	if c.ClientReadTimeout < 0 {
		bad("client_read_timeout: must not be negative (0 turns it off)")
	}
	if c.MaxPreparedStatements < 1 || c.MaxPreparedStatements > 1<<20 {
		bad("max_prepared_statements: %d is outside 1..1048576", c.MaxPreparedStatements)
	}
	if c.MaxPreparedBytes < 1<<10 || c.MaxPreparedBytes > 1<<30 {
		bad("max_prepared_bytes: %d is outside 1KiB..1GiB", c.MaxPreparedBytes)
	}
	if c.MaxQuerySize < 1<<10 || c.MaxQuerySize > 256<<20 {
		bad("max_query_size: %d is outside 1KiB..256MiB", c.MaxQuerySize)
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		bad("log_level: %q is not one of debug, info, warn, error", c.LogLevel)
	}
	switch c.LogFormat {
	case "text", "json":
	default:
		bad("log_format: %q is not one of text, json", c.LogFormat)
	}
	switch c.Mode {
	case "off":
	case "annotate", "log", "enforce":
		if len(c.Schema.Files) == 0 && len(c.Schema.Databases) == 0 && c.Schema.Introspect.User == "" {
			bad("mode %s: needs schema.files, schema.databases or schema.introspect.user", c.Mode)
		}
	default:
		bad("mode: %q is not one of off, annotate, log, enforce", c.Mode)
	}
	if c.VerdictTimeout <= 0 {
		bad("verdict_timeout: must be positive")
	}
	if c.RefuteBudget < 0 {
		bad("refute_budget: must not be negative")
	}
	switch c.EnforceSideEffects {
	case "refuse", "forward":
	default:
		bad("enforce_side_effects: %q is not one of refuse, forward", c.EnforceSideEffects)
	}
	switch c.JudgeIsolation {
	case "process", "none":
	default:
		bad("judge_isolation: %q is not one of process, none", c.JudgeIsolation)
	}
	if c.JudgeWorkers < 0 || c.JudgeWorkers > 1024 {
		bad("judge_workers: %d is outside 0..1024 (0: the number of CPUs)", c.JudgeWorkers)
	}
	if c.VerdictLogMaxSize < 64<<10 || c.VerdictLogMaxSize > 1<<40 {
		bad("verdict_log_max_size: %d is outside 64KiB..1TiB", c.VerdictLogMaxSize)
	}
	if c.JudgeMemoryLimit < 64<<20 || c.JudgeMemoryLimit > 1<<40 {
		bad("judge_memory_limit: %d is outside 64MiB..1TiB", c.JudgeMemoryLimit)
	}
	for i, a := range c.AcceptAssumptions {
		switch a {
		case "non_empty", "foreign_key_holds", "primary_key_not_null", "not_null", "same_spelling":
		default:
			bad("accept_assumptions[%d]: %q is not one of non_empty, foreign_key_holds, primary_key_not_null, not_null, same_spelling", i, a)
		}
	}
	for i, s := range c.Schema.Files {
		if strings.TrimSpace(s) == "" {
			bad("schema.files[%d]: empty path", i)
		}
	}
	for db, files := range c.Schema.Databases {
		if db == "" {
			bad("schema.databases: empty database name")
		}
		if len(files) == 0 {
			bad("schema.databases.%s: no files", db)
		}
		for i, s := range files {
			if strings.TrimSpace(s) == "" {
				bad("schema.databases.%s[%d]: empty path", db, i)
			}
		}
	}
	if c.Schema.Introspect.Timeout <= 0 {
		bad("schema.introspect.timeout: must be positive")
	}
	if c.Schema.RefreshInterval < 0 {
		bad("schema.refresh_interval: must not be negative")
	}
	switch c.Admin.Auth {
	case "trust":
	case "password":
		if len(c.Admin.Users) > 0 && c.Admin.Password == "" {
			bad("admin.password: required with auth password (or set %s, or auth: trust)", EnvAdminPassword)
		}
	default:
		bad("admin.auth: %q is not one of password, trust", c.Admin.Auth)
	}
	if c.Admin.RequireTLS && c.TLS.Cert == "" {
		bad("admin.require_tls: needs tls.cert and tls.key (the console's clients connect with TLS)")
	}
	for i, u := range c.Admin.Users {
		if u == "" {
			bad("admin.users[%d]: empty user name", i)
		}
	}
	if c.Admin.RecentVerdicts <= 0 || c.Admin.RecentVerdicts > 1<<20 {
		bad("admin.recent_verdicts: %d is outside 1..1048576", c.Admin.RecentVerdicts)
	}
	c.validateTelemetry(bad)
	for _, check := range checks {
		if err := check(c); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// RefuteOn reports whether the counterexample search runs (refute, whose
// absence means true).
func (c *Config) RefuteOn() bool {
	return c.Refute == nil || *c.Refute
}

// FilePath resolves a path written in the file against the file's
// directory (a config not loaded from a file leaves it as it is).
func (c *Config) FilePath(p string) string {
	if filepath.IsAbs(p) || c.dir == "" {
		return p
	}
	return filepath.Join(c.dir, p)
}

// VerdictLogPath is verdict_log resolved against the file's directory;
// empty when there is none.
func (c *Config) VerdictLogPath() string {
	if c.VerdictLog == "" {
		return ""
	}
	return c.FilePath(c.VerdictLog)
}
