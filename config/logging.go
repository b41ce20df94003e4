package config

import "log/slog"

// SlogLevel returns the log level as a slog.Level.
func (c *Config) SlogLevel() slog.Level {
	var l slog.Level
	_ = l.UnmarshalText([]byte(c.LogLevel)) // validated
	return l
}
