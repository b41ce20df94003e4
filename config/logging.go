package config

import (
	"fmt"
	"io"
	"log/slog"
	"os"
)

// LogHandler is the operational log's handler on w (stderr) in
// log_format: text (logfmt) or json, at level.
func (c *Config) LogHandler(w io.Writer, level slog.Leveler) slog.Handler {
	o := &slog.HandlerOptions{Level: level}
	if c.LogFormat == "json" {
		return slog.NewJSONHandler(w, o)
	}
	return slog.NewTextHandler(w, o)
}

// VerdictSink opens where mode log writes its JSON verdict lines
// (log.verdicts): stdout or stderr as given, or a file appended to. The
// closer is a no-op for the standard streams.
func (c *Config) VerdictSink(stdout, stderr io.Writer) (io.Writer, io.Closer, error) {
	switch c.Log.Verdicts {
	case "", "stdout":
		return stdout, nopCloser{}, nil
	case "stderr":
		return stderr, nopCloser{}, nil
	}
	f, err := os.OpenFile(c.path(c.Log.Verdicts), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
	if err != nil {
		return nil, nil, fmt.Errorf("config: log.verdicts: %w", err)
	}
	return f, f, nil
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
