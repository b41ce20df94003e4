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
//
// Each key's default, description, checks and environment variable are
// written once, in the key table (keytable.go, Keys), which Default,
// Validate, SHOW CONFIG (Settings) and docs/proxy.md (DocYAML) read.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// Default returns the configuration used for keys the file leaves out:
// each key's default in the key table.
func Default() Config {
	var c Config
	for _, k := range keys {
		k.setDefault(&c)
	}
	return c
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
	for _, k := range keys {
		if k.Env == "" {
			continue
		}
		if v := getenv(k.Env); v != "" {
			*k.envField(c) = v
		}
	}
	switch a := c.Upstream.Address; {
	case a == UpstreamNone:
		c.Upstream.None, c.Upstream.Address = true, ""
	case a != "": // an address from the environment overrides "upstream: none"
		c.Upstream.None = false
	}
}

// Validate checks every key and returns all problems at once, in the key
// table's order, those of checks last.
func (c *Config) Validate(checks ...Check) error {
	var errs []error
	for _, k := range keys {
		if k.check != nil {
			errs = append(errs, k.check(c)...)
		}
	}
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
