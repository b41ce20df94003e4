package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy/judging"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// loadDDL reads and loads the concatenation of files (paths relative to
// the config file).
func loadDDL(c *config.Config, what string, files []string) (*catalog.Schema, error) {
	s, _, err := readDDL(c, what, files)
	return s, err
}

// loadSchemaFiles is loadDDL with what the files declare of functions:
// with no pg_proc, the proxy refuses calls of functions the files do not
// declare IMMUTABLE or STABLE (issue 34, item 3).
func loadSchemaFiles(c *config.Config, what string, files []string) (*catalog.Schema, *judging.FileFunctions, error) {
	s, ddl, err := readDDL(c, what, files)
	if err != nil {
		return nil, nil, err
	}
	ff, err := judging.ReadFileFunctions(ddl, s)
	if err != nil {
		return nil, nil, fmt.Errorf("config: %s: %w", what, err)
	}
	return s, ff, nil
}

// readDDL is loadDDL that also returns the files' text.
func readDDL(c *config.Config, what string, files []string) (*catalog.Schema, string, error) {
	var ddl strings.Builder
	starts := make([]int, len(files))
	for i, f := range files {
		b, err := os.ReadFile(c.FilePath(f))
		if err != nil {
			return nil, "", fmt.Errorf("config: %s: %w", what, err)
		}
		starts[i] = ddl.Len()
		ddl.Write(b)
		ddl.WriteString("\n;\n")
	}
	s, err := catalog.LoadDDL(ddl.String(), catalog.Postgres)
	if err != nil {
		return nil, "", ddlError(what, files, starts, ddl.String(), err)
	}
	return s, ddl.String(), nil
}

// ddlError names the file, line and column of a syntax error in the
// concatenation text of files (each starting at starts[i]).
func ddlError(what string, files []string, starts []int, text string, err error) error {
	var se *catalog.SyntaxError
	if !errors.As(err, &se) || len(files) == 0 {
		return fmt.Errorf("config: %s: %w", what, err)
	}
	i := sort.Search(len(starts), func(i int) bool { return starts[i] > se.Offset }) - 1
	i = max(i, 0)
	p := catalog.Position(text[starts[i]:], se.Offset-starts[i], se.Msg)
	return fmt.Errorf("config: %s: %s:%d:%d: %s", what, files[i], p.Line, p.Column, se.Msg)
}

// loadCatalog reads the reference catalog file, or returns nil when the
// config names none.
func loadCatalog(c *config.Config) (*tag.Catalog, error) {
	if c.Catalog == "" {
		return nil, nil
	}
	cat, err := tag.LoadCatalog(c.FilePath(c.Catalog))
	if err != nil {
		return nil, fmt.Errorf("config: catalog: %w", err)
	}
	return cat, nil
}

// logHandler is the operational log's handler on w (stderr) in
// log_format: text (logfmt) or json, at level.
func logHandler(c *config.Config, w io.Writer, level slog.Leveler) slog.Handler {
	o := &slog.HandlerOptions{Level: level}
	if c.LogFormat == "json" {
		return slog.NewJSONHandler(w, o)
	}
	return slog.NewTextHandler(w, o)
}

// verdictSink opens where mode log writes its JSON verdict lines
// (log.verdicts): stdout or stderr as given, or a file appended to. The
// closer is a no-op for the standard streams.
func verdictSink(c *config.Config, stdout, stderr io.Writer) (io.Writer, io.Closer, error) {
	switch c.Log.Verdicts {
	case "", "stdout":
		return stdout, nopCloser{}, nil
	case "stderr":
		return stderr, nopCloser{}, nil
	}
	f, err := os.OpenFile(c.FilePath(c.Log.Verdicts), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
	if err != nil {
		return nil, nil, fmt.Errorf("config: log.verdicts: %w", err)
	}
	return f, f, nil
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
