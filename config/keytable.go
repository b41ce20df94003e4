package config

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// keys is every key of proxy.yaml, in SHOW CONFIG's order. A key added to
// Config without a row here fails TestKeyTableCoversConfig.
var keys = []Key{
	key("listen", func(c *Config) *string { return &c.Listen }, DefaultListen, "",
		hostPort).withEnv(EnvListen),
	key("log_format", func(c *Config) *string { return &c.LogFormat }, "text",
		"text (logfmt) or json, for the log on stderr; a change needs a restart", oneOf("text", "json")),
	key("log.verdicts", func(c *Config) *string { return &c.Log.Verdicts }, "stdout",
		"mode log's JSON verdict lines: stdout, stderr, or a file (appended to)"),
	key("upstream.address", func(c *Config) *string { return &c.Upstream.Address }, "",
		"required, or upstream: none (database-free)", upstreamAddress).withEnv(EnvUpstream).documented("127.0.0.1:5432"),
	key("upstream.tls_mode", func(c *Config) *string { return &c.Upstream.TLSMode }, "prefer",
		"disable|prefer|require|verify-full", oneOf("disable", "prefer", "require", "verify-full")).withEnv(EnvUpstreamTLSMode),
	key("upstream.ca_file", func(c *Config) *string { return &c.Upstream.CAFile }, "",
		"verify-full only; empty: system roots", caFileNeedsVerify).withEnv(EnvUpstreamCAFile),
	key("upstream.server_name", func(c *Config) *string { return &c.Upstream.ServerName }, "",
		"verified under verify-full instead of the address's host"),
	key("upstream.connect_timeout", func(c *Config) *time.Duration { return &c.Upstream.ConnectTimeout }, DefaultConnectTimeout,
		"the whole upstream startup: TCP, TLS, auth, first ReadyForQuery; past it the client gets FATAL 08006 naming it", positive),
	key("tls.cert", func(c *Config) *string { return &c.TLS.Cert }, "", "PEM file", certWithKey).withEnv(EnvTLSCert),
	key("tls.key", func(c *Config) *string { return &c.TLS.Key }, "", "PEM file").withEnv(EnvTLSKey),
	key("max_message_size", func(c *Config) *ByteSize { return &c.MaxMessageSize }, DefaultMaxMessageSize,
		"1KiB..1GiB; bytes, KB/MB/GB, KiB/MiB/GiB", within[ByteSize](1<<10, 1<<30, "1KiB..1GiB")),
	key("shutdown_timeout", func(c *Config) *time.Duration { return &c.ShutdownTimeout }, 30*time.Second,
		"how long shutdown waits for clients to leave", notNegative),
	key("startup_timeout", func(c *Config) *time.Duration { return &c.StartupTimeout }, DefaultStartupTimeout,
		"bounds each client's startup and authentication", positive),
	key("max_client_conn", func(c *Config) *int { return &c.MaxClientConn }, DefaultMaxClientConn,
		"connections at once; past it FATAL 53300 (both modes)", within(1, 1<<20, "1..1048576")),
	key("client_idle_timeout", func(c *Config) *time.Duration { return &c.ClientIdleTimeout }, DefaultClientIdleTimeout,
		"database-free: silence before FATAL 57P05; 0s: off", notNegativeOrOff),
	key("client_read_timeout", func(c *Config) *time.Duration { return &c.ClientReadTimeout }, DefaultClientReadTimeout,
		"database-free: one message must arrive in full within it; 0s: off", notNegativeOrOff),
	key("max_prepared_statements", func(c *Config) *int { return &c.MaxPreparedStatements }, DefaultMaxPreparedStatements,
		"database-free: named statements (and open portals) per connection", within(1, 1<<20, "1..1048576")),
	key("max_prepared_bytes", func(c *Config) *ByteSize { return &c.MaxPreparedBytes }, DefaultMaxPreparedBytes,
		"database-free: bytes they hold per connection", within[ByteSize](1<<10, 1<<30, "1KiB..1GiB")),
	key("max_query_size", func(c *Config) *ByteSize { return &c.MaxQuerySize }, DefaultMaxQuerySize,
		`both modes: a longer statement is not parsed; tagged: "too large to judge" (unknown) at once`,
		within[ByteSize](1<<10, 256<<20, "1KiB..256MiB")),
	key("log_level", func(c *Config) *string { return &c.LogLevel }, "info",
		"debug|info|warn|error", oneOf("debug", "info", "warn", "error")),
	key("fast_relay", func(c *Config) *bool { return &c.FastRelay }, true,
		"event-loop relay for connections without TLS (Linux)"),

	// The judge (docs/proxy.md).
	key("mode", func(c *Config) *string { return &c.Mode }, "off",
		"off|annotate|log|enforce (annotate/log/enforce need a schema source)",
		oneOf("off", "annotate", "log", "enforce"), modeNeedsSchema),
	key("verdict_timeout", func(c *Config) *time.Duration { return &c.VerdictTimeout }, DefaultVerdictTimeout,
		"budget of one judgement", positive),
	key("enforce_unknown", func(c *Config) *bool { return &c.EnforceUnknown }, false,
		"enforce: also refuse unknown/timeout/error (PGQ02)"),
	key("enforce_side_effects", func(c *Config) *string { return &c.EnforceSideEffects }, "refuse",
		"enforce: refuse|forward a referenced statement with side effects (PGQ02)", oneOf("refuse", "forward")),
	key("accept_assumptions", func(c *Config) *[]string { return &c.AcceptAssumptions }, nil,
		"enforce: non_empty, foreign_key_holds, primary_key_not_null, not_null, same_spelling",
		each("accept_assumptions", assumption)),
	key("gmn", func(c *Config) *bool { return &c.GMN }, false,
		"add the shipped GMN's similarity to scores (~1 ms CPU per new pair)"),
	key("refute", func(c *Config) **bool { return &c.Refute }, nil,
		"search for a counterexample database on pairs not proved (docs/refuter.md)").
		shown(func(c *Config) string { return strconv.FormatBool(c.RefuteOn()) }).documented("true"),
	key("refute_budget", func(c *Config) *time.Duration { return &c.RefuteBudget }, 0,
		"bound on that search per pair", notNegative).
		shown(func(c *Config) string { return c.RefuteBudgetInForce().String() }).documented(durationText(DefaultRefuteBudget)),
	key("judge_isolation", func(c *Config) *string { return &c.JudgeIsolation }, "process",
		"process: judge in supervised worker processes; none: in-process", oneOf("process", "none")),
	key("judge_workers", func(c *Config) *int { return &c.JudgeWorkers }, 0,
		"worker processes (and concurrent judgements); 0: number of CPUs", within(0, 1024, "0..1024 (0: the number of CPUs)")),
	key("judge_memory_limit", func(c *Config) *ByteSize { return &c.JudgeMemoryLimit }, DefaultJudgeMemoryLimit,
		"per worker; a worker over it is killed (verdict: error)", within[ByteSize](64<<20, 1<<40, "64MiB..1TiB")),
	key("log.literals", func(c *Config) *bool { return &c.Log.Literals }, false,
		"keep literals in logged SQL and differences"),
	key("verdict_log", func(c *Config) *string { return &c.VerdictLog }, "",
		"JSON Lines file of every verdict, read back at start (see Verdict file)"),
	key("verdict_log_max_size", func(c *Config) *ByteSize { return &c.VerdictLogMaxSize }, DefaultVerdictLogMaxSize,
		"64KiB..1TiB; past it the file becomes <file>.1", within[ByteSize](64<<10, 1<<40, "64KiB..1TiB")),
	key("schema.files", func(c *Config) *[]string { return &c.Schema.Files }, nil,
		"DDL files for every database (relative to this file)", each("schema.files", emptyPath)),

	key("telemetry.endpoint", func(c *Config) *string { return &c.Telemetry.Endpoint }, "",
		"e.g. http://collector:4318; empty: off"),
	key("telemetry.protocol", func(c *Config) *string { return &c.Telemetry.Protocol }, "",
		"or grpc", telemetryProtocol).documented(DefaultTelemetryProtocol),
	mapKey("telemetry.headers", func(c *Config) *map[string]string { return &c.Telemetry.Headers },
		"sent with every export; SHOW CONFIG shows their names only", true),
	key("telemetry.insecure", func(c *Config) *bool { return &c.Telemetry.Insecure }, false, ""),
	key("telemetry.ca_file", func(c *Config) *string { return &c.Telemetry.CAFile }, "", ""),
	key("telemetry.sampling_ratio", func(c *Config) **float64 { return &c.Telemetry.SamplingRatio }, nil,
		"", ratio).documented(strconv.FormatFloat(DefaultTelemetrySamplingRatio, 'g', -1, 64)),
	mapKey("telemetry.resource", func(c *Config) *map[string]string { return &c.Telemetry.Resource },
		"service.name defaults to "+DefaultServiceName, false),
	key("telemetry.timeout", func(c *Config) *time.Duration { return &c.Telemetry.Timeout }, 0,
		"", telemetryTimeouts).documented(durationText(DefaultTelemetryTimeout)),
	key("telemetry.metric_interval", func(c *Config) *time.Duration { return &c.Telemetry.MetricInterval }, 0,
		"").documented(durationText(DefaultTelemetryMetricInterval)),
	key("telemetry.queue_size", func(c *Config) *int { return &c.Telemetry.QueueSize }, 0,
		"spans waiting for export; more are dropped and counted", within(0, 1<<20, "0..1048576")).
		documented(strconv.Itoa(DefaultTelemetryQueueSize)),
	key("telemetry.shutdown_timeout", func(c *Config) *time.Duration { return &c.Telemetry.ShutdownTimeout }, 0,
		"").documented(durationText(DefaultTelemetryShutdownTimeout)),
	key("metrics_listen", func(c *Config) *string { return &c.MetricsListen }, "",
		"Prometheus /metrics, e.g. 127.0.0.1:9187; empty: off", optional(hostPort)),
	key("password", func(c *Config) *string { return &c.Password }, "",
		"database-free: what clients must give (SCRAM); empty: trust").withEnv(EnvPassword).secret(),

	databasesKey,
	key("schema.introspect.user", func(c *Config) *string { return &c.Schema.Introspect.User }, "",
		"role to read pg_catalog as; empty: no introspection"),
	key("schema.introspect.password", func(c *Config) *string { return &c.Schema.Introspect.Password }, "",
		"").withEnv(EnvIntrospectPassword).secret(),
	key("schema.introspect.timeout", func(c *Config) *time.Duration { return &c.Schema.Introspect.Timeout }, DefaultIntrospectTimeout,
		"", positive),
	key("schema.refresh_interval", func(c *Config) *time.Duration { return &c.Schema.RefreshInterval }, 5*time.Minute,
		"re-read introspected schemas this old (0: only on DDL/reload)", notNegative),
	key("catalog", func(c *Config) *string { return &c.Catalog }, "", "reference catalog file (see Tagging)"),

	key("admin.users", func(c *Config) *[]string { return &c.Admin.Users }, nil,
		"who may connect to database pgequiv; empty: no console", each("admin.users", emptyUser)),
	key("admin.auth", func(c *Config) *string { return &c.Admin.Auth }, "password",
		"password (SCRAM-SHA-256; failed logins throttled per source: after 3, waits from 250ms doubling to 1m) | trust",
		oneOf("password", "trust")),
	key("admin.password", func(c *Config) *string { return &c.Admin.Password }, "",
		"required with auth password", adminPassword).withEnv(EnvAdminPassword).secret(),
	key("admin.recent_verdicts", func(c *Config) *int { return &c.Admin.RecentVerdicts }, DefaultRecentVerdicts,
		"SHOW VERDICTS ring size", within(1, 1<<20, "1..1048576")),
	key("admin.database", func(c *Config) *string { return &c.Admin.Database }, "",
		"the console's database; empty: "+DefaultAdminDatabase+", or "+DefaultAdminDatabaseFree+" in database-free mode").
		shown((*Config).AdminDatabase),
	key("admin.require_tls", func(c *Config) *bool { return &c.Admin.RequireTLS }, false,
		"refuse console connections without TLS (needs tls.cert and tls.key)", adminTLSNeedsCert),

	key("llm_judge.endpoint", func(c *Config) *string { return &c.LLMJudge.Endpoint }, "",
		"OpenAI-compatible base URL (…/v1); empty: off; needs judge_isolation: none",
		optional(httpURL), optional(llmNeedsInProcess)),
	key("llm_judge.model", func(c *Config) *string { return &c.LLMJudge.Model }, "",
		"required with endpoint", withLLM(required)),
	key("llm_judge.api_key_env", func(c *Config) *string { return &c.LLMJudge.APIKeyEnv }, DefaultLLMAPIKeyEnv,
		"environment variable holding the API key"),
	key("llm_judge.samples", func(c *Config) *int { return &c.LLMJudge.Samples }, DefaultLLMSamples,
		"k of the majority vote, 1..15", withLLM(within(1, 15, "1..15"))),
	key("llm_judge.timeout", func(c *Config) *time.Duration { return &c.LLMJudge.Timeout }, DefaultLLMTimeout,
		"per pair; verdict_timeout still bounds the judgement", withLLM(positive[time.Duration])),
}

// databasesKey is schema.databases: a map shown one row per database.
var databasesKey = Key{
	Name:       "schema.databases",
	Doc:        "database name -> DDL files, e.g. shop: [shop.sql]",
	setDefault: func(*Config) {},
	rows: func(c *Config) [][2]string {
		if len(c.Schema.Databases) == 0 {
			// The key is listed even when it maps nothing.
			return [][2]string{{"schema.databases", ""}}
		}
		var out [][2]string
		for _, db := range slices.Sorted(maps.Keys(c.Schema.Databases)) {
			out = append(out, [2]string{"schema.databases." + db, showValue(c.Schema.Databases[db])})
		}
		return out
	},
	check:    func(c *Config) []error { return keyErrors("schema.databases", schemaDatabases(c, c.Schema.Databases)) },
	docValue: "{}",
}

// mapKey is a map of strings shown as key=value pairs; hidden hides the
// values.
func mapKey(name string, field func(*Config) *map[string]string, doc string, hidden bool) Key {
	k := key(name, field, nil, doc)
	show := func(v string) string { return v }
	if hidden {
		show = hide
		k.ValuesHidden = true
		k.raw = func(c *Config) string { return quotedPairs(*field(c)) }
	}
	k.show = func(c *Config) string { return mapText(*field(c), show) }
	return k
}

func emptyUser(u string) string {
	if u == "" {
		return "empty user name"
	}
	return ""
}

// quotedPairs writes a map so that two maps give the same text only when
// they are equal.
func quotedPairs(m map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b.WriteString(strconv.Quote(k) + "=" + strconv.Quote(m[k]) + ",")
	}
	return b.String()
}
