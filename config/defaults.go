package config

import "time"

// Defaults of keys that components also fall back on when a setting is
// left zero (the proxy's, the database-free server's and the telemetry's
// options, the check command). The key table (Keys) is what applies them
// to a file; components read them here rather than repeating the values.
const (
	// DefaultListen is listen's default. Its port is no other PostgreSQL
	// service's default (5432 is PostgreSQL's; 6432 PgBouncer's, pgcat's
	// and Odyssey's; 6543 Supavisor's; 9999 Pgpool-II's), so that the
	// README's serve command binds on a host that runs any of them (issue
	// 37).
	DefaultListen         = "127.0.0.1:15432"
	DefaultConnectTimeout = 10 * time.Second
	DefaultMaxMessageSize = 64 << 20
	DefaultStartupTimeout = 60 * time.Second
	// The connection bounds: see docs/database-free.md for why these.
	DefaultMaxClientConn         = 1000
	DefaultClientIdleTimeout     = time.Hour
	DefaultClientReadTimeout     = time.Minute
	DefaultMaxPreparedStatements = 10000
	DefaultMaxPreparedBytes      = 64 << 20
	DefaultMaxQuerySize          = 1 << 20

	DefaultVerdictTimeout = 2 * time.Second
	// DefaultRefuteBudget is the proxy's counterexample search budget per
	// pair (refute_budget: 0), where a verdict travels with a client's
	// statement and latency counts more than reproducibility (the judge's
	// own default, equivalence.DefaultRefuteBudget, is a safety net).
	DefaultRefuteBudget      = 20 * time.Millisecond
	DefaultJudgeMemoryLimit  = 1 << 30
	DefaultVerdictLogMaxSize = 64 << 20
	DefaultIntrospectTimeout = 10 * time.Second
	DefaultRecentVerdicts    = 256
	// DefaultAdminDatabase is the admin console's database with an
	// upstream; DefaultAdminDatabaseFree in database-free mode, whose
	// clients may use any database name.
	DefaultAdminDatabase     = "pgequiv"
	DefaultAdminDatabaseFree = "pgequiv_admin"
	// The LLM judge's defaults, which the CLI's --llm-* flags share.
	DefaultLLMAPIKeyEnv = "OPENAI_API_KEY"
	DefaultLLMSamples   = 3
	DefaultLLMTimeout   = 30 * time.Second

	// The telemetry section's defaults, which the file leaves zero so
	// that the OTEL_* variables can still decide (docs/telemetry.md).
	DefaultTelemetryProtocol        = "http/protobuf"
	DefaultTelemetryTimeout         = 10 * time.Second
	DefaultTelemetryMetricInterval  = 60 * time.Second
	DefaultTelemetryQueueSize       = 2048
	DefaultTelemetryShutdownTimeout = 5 * time.Second
	DefaultTelemetrySamplingRatio   = 1.0
	DefaultServiceName              = "pgequiv"
)

// AdminDatabase is admin.database in force: the file's, else the default
// of the mode.
func (c *Config) AdminDatabase() string {
	switch {
	case c.Admin.Database != "":
		return c.Admin.Database
	case c.Upstream.None:
		return DefaultAdminDatabaseFree
	}
	return DefaultAdminDatabase
}

// RefuteBudgetInForce is refute_budget with 0 read as the default.
func (c *Config) RefuteBudgetInForce() time.Duration {
	if c.RefuteBudget == 0 {
		return DefaultRefuteBudget
	}
	return c.RefuteBudget
}
