// Package catalogcheck compares a catalog loaded from DDL with what a live
// PostgreSQL database says in pg_constraint, pg_index, pg_attribute and
// pg_inherits: the test that the loader misses no fact the engine
// enforces. Tests of the loader (pg_dump output) and of the proxy's
// introspection share it.
package catalogcheck

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/planner/catalog"
)

// Compare lists every fact of db's tables in the public schema that s does
// not hold as the database does; empty when they agree.
func Compare(ctx context.Context, conn *pgx.Conn, s *catalog.Schema) ([]string, error) {
	c := &comparison{s: s}
	for _, check := range []func(context.Context, *pgx.Conn) error{c.columns, c.constraints, c.domainChecks, c.uniqueIndexes, c.inheritance} {
		if err := check(ctx, conn); err != nil {
			return nil, err
		}
	}
	return c.bad, nil
}

// A comparison collects what the catalog s misses (bad).
type comparison struct {
	s   *catalog.Schema
	bad []string
}

func (c *comparison) miss(format string, args ...any) {
	c.bad = append(c.bad, fmt.Sprintf(format, args...))
}

// table is s's table name, or nil, noted missing.
func (c *comparison) table(name string) *catalog.Table {
	t := c.s.Table(name)
	if t == nil {
		c.miss("table %s missing", name)
	}
	return t
}

// colNames lists the names of t's columns ords, comma-separated.
func colNames(t *catalog.Table, ords []int) string {
	var ns []string
	for _, o := range ords {
		ns = append(ns, t.Columns[o].Name)
	}
	return strings.Join(ns, ",")
}

// queryRows reads the rows of query, each by scan, failing with what
// the query reads.
func queryRows[T any](ctx context.Context, conn *pgx.Conn, what, query string, scan func(pgx.Rows, *T) error) ([]T, error) {
	rows, err := conn.Query(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("catalogcheck: %s: %w", what, err)
	}
	var out []T
	for rows.Next() {
		var r T
		if err := scan(rows, &r); err != nil {
			rows.Close()
			return nil, fmt.Errorf("catalogcheck: %s: %w", what, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("catalogcheck: %s: %w", what, err)
	}
	return out, nil
}

// sameExpr says whether two SQL expressions over a table's columns are
// the same up to how they are printed: the loader's deparse and
// pg_get_expr differ in parentheses, casts of literals and quotes, so the
// texts are compared with those stripped.
func sameExpr(a, b string) bool {
	return normExpr(a) == normExpr(b)
}

var castRE = regexp.MustCompile(`::[a-z_]+( varying| precision)?`)

func normExpr(s string) string {
	s = strings.ToLower(s)
	s = castRE.ReplaceAllString(s, "")
	r := strings.NewReplacer("(", "", ")", "", `"`, "", " ", "", "\n", "")
	return r.Replace(s)
}

// replaceWord replaces whole-word occurrences of w in s.
func replaceWord(s, w, by string) string {
	var out strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], w) && (i == 0 || !isWord(s[i-1])) && (i+len(w) == len(s) || !isWord(s[i+len(w)])) {
			out.WriteString(by)
			i += len(w)
			continue
		}
		out.WriteByte(s[i])
		i++
	}
	return out.String()
}

func isWord(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
