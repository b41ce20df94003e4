package config

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// The checks of the key table. Each returns what is wrong with a value,
// without the key's name, which Validate puts before it.

type number interface{ ~int | ~int64 }

func positive[T number](_ *Config, v T) error {
	if v <= 0 {
		return errors.New("must be positive")
	}
	return nil
}

func notNegative[T number](_ *Config, v T) error {
	if v < 0 {
		return errors.New("must not be negative")
	}
	return nil
}

// notNegativeOrOff is for timeouts that 0 turns off.
func notNegativeOrOff(_ *Config, v time.Duration) error {
	if v < 0 {
		return errors.New("must not be negative (0 turns it off)")
	}
	return nil
}

// within accepts lo..hi; bounds is how the message writes them.
func within[T number](lo, hi T, bounds string) func(*Config, T) error {
	return func(_ *Config, v T) error {
		if v < lo || v > hi {
			return fmt.Errorf("%d is outside %s", v, bounds)
		}
		return nil
	}
}

func oneOf(values ...string) func(*Config, string) error {
	return func(_ *Config, v string) error {
		for _, ok := range values {
			if v == ok {
				return nil
			}
		}
		return fmt.Errorf("%q is not one of %s", v, strings.Join(values, ", "))
	}
}

// hostPort checks a host:port address as the listener or dialer will read
// it, so that a port such as 99999 is refused with the rest of the file
// rather than when workers have started.
func hostPort(_ *Config, addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port", addr)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q has port %q, not a number in 0..65535", addr, port)
	}
	return nil
}

// optional runs check on a value that is set.
func optional[T comparable](check func(*Config, T) error) func(*Config, T) error {
	return func(c *Config, v T) error {
		var zero T
		if v == zero {
			return nil
		}
		return check(c, v)
	}
}

// withLLM runs check only when the LLM judge is on.
func withLLM[T any](check func(*Config, T) error) func(*Config, T) error {
	return func(c *Config, v T) error {
		if c.LLMJudge.Endpoint == "" {
			return nil
		}
		return check(c, v)
	}
}

// each checks the elements of a list; bad says what is wrong with one,
// "" for nothing.
func each(name string, bad func(string) string) func(*Config, []string) error {
	return func(_ *Config, l []string) error {
		var errs []error
		for i, s := range l {
			if msg := bad(s); msg != "" {
				errs = append(errs, whole("%s[%d]: %s", name, i, msg))
			}
		}
		return errors.Join(errs...)
	}
}

func emptyPath(s string) string {
	if strings.TrimSpace(s) == "" {
		return "empty path"
	}
	return ""
}

// Assumptions are the assumption kinds accept_assumptions takes.
var Assumptions = []string{"non_empty", "foreign_key_holds", "primary_key_not_null", "not_null", "same_spelling"}

func assumption(a string) string {
	if oneOf(Assumptions...)(nil, a) != nil {
		return fmt.Sprintf("%q is not one of %s", a, strings.Join(Assumptions, ", "))
	}
	return ""
}

func upstreamAddress(c *Config, a string) error {
	switch {
	case c.Upstream.None:
		return nil
	case a == "":
		return fmt.Errorf("required (or set %s)", EnvUpstream)
	}
	return hostPort(c, a)
}

func caFileNeedsVerify(c *Config, f string) error {
	if f != "" && c.Upstream.TLSMode != "verify-full" {
		return errors.New("only used with tls_mode verify-full")
	}
	return nil
}

func certWithKey(c *Config, _ string) error {
	if (c.TLS.Cert == "") != (c.TLS.Key == "") {
		return whole("tls: cert and key must be given together")
	}
	return nil
}

func modeNeedsSchema(c *Config, m string) error {
	switch m {
	case "annotate", "log", "enforce":
		if len(c.Schema.Files) == 0 && len(c.Schema.Databases) == 0 && c.Schema.Introspect.User == "" {
			return whole("mode %s: needs schema.files, schema.databases or schema.introspect.user", m)
		}
	}
	return nil
}

func schemaDatabases(_ *Config, dbs map[string][]string) error {
	var errs []error
	for db, files := range dbs {
		if db == "" {
			errs = append(errs, whole("schema.databases: empty database name"))
		}
		if len(files) == 0 {
			errs = append(errs, whole("schema.databases.%s: no files", db))
		}
		for i, s := range files {
			if emptyPath(s) != "" {
				errs = append(errs, whole("schema.databases.%s[%d]: empty path", db, i))
			}
		}
	}
	return errors.Join(errs...)
}

func adminPassword(c *Config, p string) error {
	if c.Admin.Auth == "password" && len(c.Admin.Users) > 0 && p == "" {
		return fmt.Errorf("required with auth password (or set %s, or auth: trust)", EnvAdminPassword)
	}
	return nil
}

func adminTLSNeedsCert(c *Config, require bool) error {
	if require && c.TLS.Cert == "" {
		return errors.New("needs tls.cert and tls.key (the console's clients connect with TLS)")
	}
	return nil
}

func httpURL(_ *Config, u string) error {
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return fmt.Errorf("%q is not an http(s) URL", u)
	}
	return nil
}

// llmNeedsInProcess: judge worker processes get options over a pipe; an
// HTTP client and its cache do not cross it.
func llmNeedsInProcess(c *Config, _ string) error {
	if c.JudgeIsolation != "none" {
		return whole("llm_judge: needs judge_isolation: none (judge worker processes do not call out)")
	}
	return nil
}

func required(_ *Config, s string) error {
	if s == "" {
		return errors.New("required with llm_judge.endpoint")
	}
	return nil
}

func telemetryProtocol(_ *Config, p string) error {
	switch p {
	case "", "grpc", "http", "http/protobuf":
		return nil
	}
	return fmt.Errorf("%q is not one of grpc, http/protobuf", p)
}

func ratio(_ *Config, r *float64) error {
	if r != nil && (*r < 0 || *r > 1) {
		return fmt.Errorf("%v is outside 0..1", *r)
	}
	return nil
}

// telemetryTimeouts is one message for the section's three durations.
func telemetryTimeouts(c *Config, _ time.Duration) error {
	if t := c.Telemetry; t.Timeout < 0 || t.MetricInterval < 0 || t.ShutdownTimeout < 0 {
		return whole("telemetry: timeout, metric_interval and shutdown_timeout must not be negative")
	}
	return nil
}
