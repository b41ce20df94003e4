// Package pggen writes the Go files of names read from PostgreSQL 15's
// catalog, and checks them against a test cluster: the planner's
// pgnames_pg15.go (every function and type name, by kind, and argument
// counts) and the relay's builtins_pg15.go (the functions, operators and
// relations that change nothing). The two read different columns of the
// catalog, so they stay two files, each with its drift test, written by
// this one generator.
package pggen

import (
	"bytes"
	"context"
	"fmt"
	"go/format"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// List is one generated list of names, kept in the order given.
type List struct {
	Name, Doc string
	Names     []string
}

// Map is one generated map from names to strings, written sorted by
// name. Doc holds its comment's lines.
type Map struct {
	Name    string
	Doc     []string
	Entries map[string]string
}

// File is a generated Go file: Header is its "Code generated" line.
type File struct {
	Header, Package string
	Lists           []List
	Maps            []Map
}

// Source returns the file's Go source, gofmt'ed.
func (f File) Source() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\npackage %s\n", f.Header, f.Package)
	for _, l := range f.Lists {
		fmt.Fprintf(&b, "\n// %s\nvar %s = []string{\n", l.Doc, l.Name)
		line := 0
		for _, n := range l.Names {
			q := fmt.Sprintf("%q, ", n)
			if line > 0 && line+len(q) > 100 {
				b.WriteString("\n")
				line = 0
			}
			b.WriteString(q)
			line += len(q)
		}
		b.WriteString("\n}\n")
	}
	for _, m := range f.Maps {
		b.WriteString("\n")
		for _, d := range m.Doc {
			fmt.Fprintf(&b, "// %s\n", d)
		}
		fmt.Fprintf(&b, "var %s = map[string]string{\n", m.Name)
		for _, n := range slices.Sorted(maps.Keys(m.Entries)) {
			fmt.Fprintf(&b, "%q: %q,\n", n, m.Entries[n])
		}
		b.WriteString("}\n")
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("pggen: %s: %w", f.Package, err)
	}
	return src, nil
}

// Write writes the file's source to path.
func (f File) Write(path string) error {
	src, err := f.Source()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, src, 0o644); err != nil {
		return fmt.Errorf("pggen: %w", err)
	}
	return nil
}

// Names runs a query of one text column and returns its rows, in the
// query's order.
func Names(ctx context.Context, conn *pgx.Conn, query string, args ...any) ([]string, error) {
	rows, err := conn.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("pggen: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("pggen: %w", err)
	}
	return names, nil
}

// CheckVersion fails unless conn's server is PostgreSQL 15, whose catalog
// the generated file (named file) holds.
func CheckVersion(ctx context.Context, conn *pgx.Conn, file string) error {
	var version string
	if err := conn.QueryRow(ctx, "SHOW server_version_num").Scan(&version); err != nil {
		return fmt.Errorf("pggen: %w", err)
	}
	if !strings.HasPrefix(version, "15") {
		return fmt.Errorf("the test PostgreSQL is %s; %s is PostgreSQL 15's", version, file)
	}
	return nil
}

// Diff names what the catalog's list has that the file's lacks, then
// the reverse, one name a line.
func Diff(pg, file []string) string {
	inPg, inFile := setOf(pg), setOf(file)
	var b strings.Builder
	for _, n := range pg {
		if !inFile[n] {
			fmt.Fprintf(&b, "  only in pg_catalog: %s\n", n)
		}
	}
	for _, n := range file {
		if !inPg[n] {
			fmt.Fprintf(&b, "  only in the file: %s\n", n)
		}
	}
	return b.String()
}

func setOf(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
