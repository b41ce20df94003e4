package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestValidateMessages: the key table's checks report each problem in the
// words Validate has always used, one error per problem.
func TestValidateMessages(t *testing.T) {
	neg := -1.0
	for _, tc := range []struct {
		name   string
		change func(c *Config)
		want   []string
	}{
		{"valid", func(*Config) {}, nil},
		{"upstream", func(c *Config) {
			c.Upstream.Address, c.Upstream.TLSMode, c.Upstream.CAFile, c.Upstream.ConnectTimeout = "x", "y", "a", 0
		}, []string{
			`upstream.address: "x" is not host:port`,
			"upstream.ca_file: only used with tls_mode verify-full",
			"upstream.connect_timeout: must be positive",
			`upstream.tls_mode: "y" is not one of disable, prefer, require, verify-full`,
		}},
		{"no upstream", func(c *Config) { c.Upstream.Address = "" }, []string{"upstream.address: required (or set PGEQUIV_UPSTREAM)"}},
		{"client side", func(c *Config) {
			c.TLS.Cert, c.MaxMessageSize, c.ShutdownTimeout, c.StartupTimeout = "c", 1, -1, 0
		}, []string{
			"max_message_size: 1 is outside 1KiB..1GiB",
			"shutdown_timeout: must not be negative",
			"startup_timeout: must be positive",
			"tls: cert and key must be given together",
		}},
		{"connection bounds", func(c *Config) {
			c.MaxClientConn, c.ClientIdleTimeout, c.ClientReadTimeout = 0, -1, -1
			c.MaxPreparedStatements, c.MaxPreparedBytes, c.MaxQuerySize = 0, 1<<40, 1
		}, []string{
			"client_idle_timeout: must not be negative (0 turns it off)",
			"client_read_timeout: must not be negative (0 turns it off)",
			"max_client_conn: 0 is outside 1..1048576",
			"max_prepared_bytes: 1099511627776 is outside 1KiB..1GiB",
			"max_prepared_statements: 0 is outside 1..1048576",
			"max_query_size: 1 is outside 1KiB..256MiB",
		}},
		{"judge", func(c *Config) {
			c.LogLevel, c.LogFormat, c.Mode, c.VerdictTimeout, c.RefuteBudget, c.EnforceSideEffects = "x", "y", "annotate", 0, -1, "z"
		}, []string{
			`enforce_side_effects: "z" is not one of refuse, forward`,
			`log_format: "y" is not one of text, json`,
			`log_level: "x" is not one of debug, info, warn, error`,
			"mode annotate: needs schema.files, schema.databases or schema.introspect.user",
			"refute_budget: must not be negative",
			"verdict_timeout: must be positive",
		}},
		{"isolation and assumptions", func(c *Config) {
			c.Mode, c.JudgeIsolation, c.JudgeWorkers, c.VerdictLogMaxSize, c.JudgeMemoryLimit = "zz", "q", 2000, 1, 1
			c.AcceptAssumptions = []string{"non_empty", "bad"}
		}, []string{
			`accept_assumptions[1]: "bad" is not one of non_empty, foreign_key_holds, primary_key_not_null, not_null, same_spelling`,
			`judge_isolation: "q" is not one of process, none`,
			"judge_memory_limit: 1 is outside 64MiB..1TiB",
			"judge_workers: 2000 is outside 0..1024 (0: the number of CPUs)",
			`mode: "zz" is not one of off, annotate, log, enforce`,
			"verdict_log_max_size: 1 is outside 64KiB..1TiB",
		}},
		{"schema", func(c *Config) {
			c.Schema.Files = []string{" "}
			c.Schema.Databases = map[string][]string{"": nil, "a": {"x", ""}}
			c.Schema.Introspect.Timeout, c.Schema.RefreshInterval = 0, -1
		}, []string{
			"schema.databases.: no files",
			"schema.databases.a[1]: empty path",
			"schema.databases: empty database name",
			"schema.files[0]: empty path",
			"schema.introspect.timeout: must be positive",
			"schema.refresh_interval: must not be negative",
		}},
		{"admin", func(c *Config) {
			c.Admin.Users, c.Admin.RequireTLS, c.Admin.RecentVerdicts = []string{"", "u"}, true, 0
		}, []string{
			"admin.password: required with auth password (or set PGEQUIV_ADMIN_PASSWORD, or auth: trust)",
			"admin.recent_verdicts: 0 is outside 1..1048576",
			"admin.require_tls: needs tls.cert and tls.key (the console's clients connect with TLS)",
			"admin.users[0]: empty user name",
		}},
		{"admin auth", func(c *Config) { c.Admin.Users, c.Admin.Auth = []string{"u"}, "zz" }, []string{`admin.auth: "zz" is not one of password, trust`}},
		{"llm judge", func(c *Config) { c.LLMJudge.Endpoint, c.LLMJudge.Samples, c.LLMJudge.Timeout = "ftp://x", 0, 0 }, []string{
			`llm_judge.endpoint: "ftp://x" is not an http(s) URL`,
			"llm_judge.model: required with llm_judge.endpoint",
			"llm_judge.samples: 0 is outside 1..15",
			"llm_judge.timeout: must be positive",
			"llm_judge: needs judge_isolation: none (judge worker processes do not call out)",
		}},
		{"llm judge in process", func(c *Config) { c.LLMJudge.Endpoint, c.LLMJudge.Model, c.JudgeIsolation = "http://x", "m", "none" }, nil},
		{"telemetry", func(c *Config) {
			c.Telemetry.Protocol, c.Telemetry.SamplingRatio, c.Telemetry.Timeout, c.Telemetry.QueueSize = "udp", &neg, -1, -1
			c.MetricsListen = "nope"
		}, []string{
			`metrics_listen: "nope" is not host:port`,
			`telemetry.protocol: "udp" is not one of grpc, http/protobuf`,
			"telemetry.queue_size: -1 is outside 0..1048576",
			"telemetry.sampling_ratio: -1 is outside 0..1",
			"telemetry: timeout, metric_interval and shutdown_timeout must not be negative",
		}},
		{"telemetry port", func(c *Config) { c.Telemetry.MetricInterval, c.MetricsListen = -time.Second, "a:99999" }, []string{
			`metrics_listen: "a:99999" has port "99999", not a number in 0..65535`,
			"telemetry: timeout, metric_interval and shutdown_timeout must not be negative",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			c.Upstream.Address = "127.0.0.1:5432"
			tc.change(&c)
			var got []string
			if err := c.Validate(); err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
