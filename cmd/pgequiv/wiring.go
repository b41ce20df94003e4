package main

// The wiring: package config turns proxy.yaml into plain, validated data;
// this file and wiring_*.go build pgequiv serve's components from it (the
// proxy's options, the judging settings, the judge, schemas, the admin
// console's options), reading the files it names. Every error here counts
// as an invalid config, found before anything is applied, so that a
// reload keeps the running config.

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy"
	"github.com/pgequiv/pgequiv/proxy/judging"
)

// configChecks are the validations of proxy.yaml that need a component
// package config does not import. config.Load reports them with its own
// (and last), so a file they refuse is refused at load and on reload.
var configChecks = []config.Check{checkTelemetry}

// loadConfigFile loads and validates the file at path, component checks
// included.
func loadConfigFile(path string, getenv func(string) string) (*config.Config, error) {
	return config.Load(path, getenv, configChecks...)
}

// loaded is a validated configuration with everything built from it.
type loaded struct {
	cfg   *config.Config
	opts  proxy.Options
	judge judging.JudgeSettings
}

// loadConfig loads and validates the file and builds the proxy options
// and judge settings (which reads the certificate, schema and catalog
// files), so that every error is found before anything is applied.
func loadConfig(path string, getenv func(string) string) (*loaded, error) {
	cfg, err := loadConfigFile(path, getenv)
	if err != nil {
		return nil, err
	}
	opts, err := proxyOptions(cfg)
	if err != nil {
		return nil, err
	}
	judge, err := judgeSettings(cfg, opts.Upstream)
	if err != nil {
		return nil, err
	}
	return &loaded{cfg: cfg, opts: opts, judge: judge}, nil
}

// proxyOptions builds the proxy's options, reading the certificate files.
func proxyOptions(c *config.Config) (proxy.Options, error) {
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

// judgeSettings builds the judging observer's settings, reading the
// schema and catalog files. up is the proxy's upstream, which
// introspection connects to.
func judgeSettings(c *config.Config, up proxy.Upstream) (judging.JudgeSettings, error) {
	s := judging.JudgeSettings{
		Mode:               judging.JudgeMode(c.Mode),
		VerdictTimeout:     c.VerdictTimeout,
		EnforceUnknown:     c.EnforceUnknown,
		EnforceSideEffects: judging.SideEffectsPolicy(c.EnforceSideEffects),
		LogLiterals:        c.Log.Literals,
		RecentVerdicts:     c.Admin.RecentVerdicts,
		Schemas:            judging.SchemaSettings{RefreshInterval: c.Schema.RefreshInterval},
	}
	s.Options.MaxQueryBytes = int(c.MaxQuerySize)
	s.Options.Refute = refuteOptions(c)
	for _, a := range c.AcceptAssumptions {
		s.Options.AcceptAssumptions = append(s.Options.AcceptAssumptions, equivalence.AssumptionKind(a))
	}
	var err error
	if s.Options.GMN, err = gmnModel(c); err != nil {
		return s, err
	}
	if s.Options.Adviser, err = adviser(c); err != nil {
		return s, err
	}
	if len(c.Schema.Files) > 0 {
		if s.Schemas.Default, s.Schemas.DefaultFunctions, err = loadSchemaFiles(c, "schema.files", c.Schema.Files); err != nil {
			return s, err
		}
	}
	if len(c.Schema.Databases) > 0 {
		s.Schemas.ByDatabase = map[string]*catalog.Schema{}
		s.Schemas.Functions = map[string]*judging.FileFunctions{}
		for db, files := range c.Schema.Databases {
			schema, ff, err := loadSchemaFiles(c, "schema.databases."+db, files)
			if err != nil {
				return s, err
			}
			s.Schemas.ByDatabase[db], s.Schemas.Functions[db] = schema, ff
		}
	}
	if in := c.Schema.Introspect; in.User != "" {
		s.Schemas.Introspect = &judging.Introspection{Upstream: up, User: in.User, Password: in.Password, Timeout: in.Timeout}
	}
	if s.Catalog, err = loadCatalog(c); err != nil {
		return s, err
	}
	return s, nil
}

// adminOptions returns the admin console's options with console, or nil
// when no admin users are configured.
func adminOptions(c *config.Config, console proxy.AdminConsole) *proxy.AdminOptions {
	if len(c.Admin.Users) == 0 {
		return nil
	}
	a := &proxy.AdminOptions{Users: c.Admin.Users, Console: console, Database: c.AdminDatabase(), RequireTLS: c.Admin.RequireTLS}
	if c.Admin.Auth == "password" {
		a.Password = c.Admin.Password
	}
	return a
}
