package config

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"os"

	"github.com/pgequiv/pgequiv/proxy"
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
		MaxMessageSize: int(c.MaxMessageSize),
		StartupTimeout: c.StartupTimeout,
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
