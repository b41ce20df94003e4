package main

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/equivalence"
)

// configSettings lists every setting of c as key/value pairs for the
// admin console's SHOW CONFIG, defaults spelled out; passwords are hidden.
func configSettings(c *config.Config) [][2]string {
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
		{"refute", strconv.FormatBool(c.RefuteOn())},
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
		// Header values are credentials (authentication tokens): names only.
		{"telemetry.headers", mapText(c.Telemetry.Headers, hide)},
		{"telemetry.insecure", strconv.FormatBool(c.Telemetry.Insecure)},
		{"telemetry.ca_file", c.Telemetry.CAFile},
		{"telemetry.sampling_ratio", samplingRatioText(c.Telemetry.SamplingRatio)},
		{"telemetry.resource", mapText(c.Telemetry.Resource, func(v string) string { return v })},
		{"telemetry.timeout", c.Telemetry.Timeout.String()},
		{"telemetry.metric_interval", c.Telemetry.MetricInterval.String()},
		{"telemetry.queue_size", strconv.Itoa(c.Telemetry.QueueSize)},
		{"telemetry.shutdown_timeout", c.Telemetry.ShutdownTimeout.String()},
		{"metrics_listen", c.MetricsListen},
		{"password", hide(c.Password)},
	}
	dbs := make([]string, 0, len(c.Schema.Databases))
	for db := range c.Schema.Databases {
		dbs = append(dbs, db)
	}
	sort.Strings(dbs)
	if len(dbs) == 0 {
		// The key is listed even when it maps nothing.
		out = append(out, [2]string{"schema.databases", ""})
	}
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
		{"admin.database", adminDatabase(c)},
		{"admin.require_tls", strconv.FormatBool(c.Admin.RequireTLS)},
		{"llm_judge.endpoint", c.LLMJudge.Endpoint},
		{"llm_judge.model", c.LLMJudge.Model},
		{"llm_judge.api_key_env", c.LLMJudge.APIKeyEnv},
		{"llm_judge.samples", strconv.Itoa(c.LLMJudge.Samples)},
		{"llm_judge.timeout", c.LLMJudge.Timeout.String()},
	}...)
}

// mapText is a map setting as key=value pairs in key order, each value
// through show.
func mapText(m map[string]string, show func(string) string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + show(m[k])
	}
	return strings.Join(keys, ",")
}

// samplingRatioText is telemetry.sampling_ratio; unset is the empty
// string, as for the other telemetry keys left to their defaults.
func samplingRatioText(r *float64) string {
	if r == nil {
		return ""
	}
	return strconv.FormatFloat(*r, 'g', -1, 64)
}

// refuteBudgetText is refute_budget as SHOW CONFIG shows it: the default
// spelled out rather than 0s.
func refuteBudgetText(d time.Duration) string {
	if d == 0 {
		return equivalence.InteractiveRefuteBudget.String()
	}
	return d.String()
}
