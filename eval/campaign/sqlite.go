package campaign

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/pgequiv/pgequiv/internal/sqlitetest"
	"github.com/pgequiv/pgequiv/planner/catalog"

	_ "modernc.org/sqlite" // the real engine
)

// sqliteEngine is a SQLite database file holding one schema, as a user's
// application database would: foreign keys declared but not enforced
// (SQLite's default), every other constraint in force.
type sqliteEngine struct {
	db   *sql.DB
	conn *sql.Conn
	path string
}

// openSQLite writes ddl into a new database file under dir and returns a
// connection to it with the engine's report of the schema.
func openSQLite(ctx context.Context, dir, name, ddl string) (*sqliteEngine, *meta, error) {
	path := filepath.Join(dir, name+".sqlite")
	_ = os.Remove(path)
	u := url.URL{Scheme: "file", Opaque: url.PathEscape(path)}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, ddl); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("schema %s: %w", name, err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	e := &sqliteEngine{db: db, conn: conn, path: path}
	m, err := e.meta(ctx)
	if err != nil {
		e.close()
		return nil, nil, fmt.Errorf("schema %s: read pragmas: %w", name, err)
	}
	return e, m, nil
}

func (e *sqliteEngine) dialect() catalog.Dialect { return catalog.SQLite }

func (e *sqliteEngine) begin(ctx context.Context, _ string) error {
	_, err := e.conn.ExecContext(ctx, "BEGIN")
	return err
}

func (e *sqliteEngine) exec(ctx context.Context, stmt string) error {
	// A refused statement is rolled back alone (ON CONFLICT ABORT).
	_, err := e.conn.ExecContext(ctx, stmt)
	return err
}

func (e *sqliteEngine) commitCheck(context.Context) error { return nil }

func (e *sqliteEngine) rollback(ctx context.Context) error {
	_, err := e.conn.ExecContext(ctx, "ROLLBACK")
	return err
}

func (e *sqliteEngine) close() {
	e.conn.Close()
	e.db.Close()
}

func (e *sqliteEngine) query(ctx context.Context, q string, _, fingerprint bool) result {
	if _, err := e.conn.ExecContext(ctx, "SAVEPOINT q"); err != nil {
		return result{err: err}
	}
	res := e.rows(ctx, q)
	if fingerprint && res.err == nil {
		res.digest = e.digest(ctx)
	}
	if _, err := e.conn.ExecContext(ctx, "ROLLBACK TO q; RELEASE q"); err != nil && res.err == nil {
		res.err = err
	}
	return res
}

func (e *sqliteEngine) rows(ctx context.Context, q string) result {
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	rows, err := e.conn.QueryContext(qctx, q)
	if err != nil {
		return result{err: err}
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return result{err: err}
	}
	var out [][]cell
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return result{err: err}
		}
		if len(out) >= maxRows {
			return result{err: errTooManyRows}
		}
		row := make([]cell, len(vals))
		for i, v := range vals {
			if _, ok := v.(time.Time); ok {
				return result{err: errDriverTime}
			}
			row[i] = cell{liteExact(v), sqlitetest.Canon(v)}
		}
		out = append(out, row)
	}
	return result{rows: out, ncols: len(cols), err: rows.Err()}
}

// liteExact writes a value with its storage class: 5 and 5.0 and '5' are
// three values SQLite prints and compares differently.
func liteExact(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			return strconv.FormatFloat(v, 'f', 1, 64)
		}
		return strconv.FormatFloat(v, 'g', 15, 64)
	case string:
		return "'" + v + "'"
	case []byte:
		return "x'" + fmt.Sprintf("%x", v) + "'"
	}
	return fmt.Sprintf("%T:%v", v, v)
}

func (e *sqliteEngine) digest(ctx context.Context) string {
	r := e.rows(ctx, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name")
	var b strings.Builder
	for _, row := range r.rows {
		t := strings.Trim(row[0].exact, "'")
		fmt.Fprintf(&b, "%s=%v;", t, e.rows(ctx, `SELECT count(*) FROM "`+t+`"`))
	}
	return b.String()
}

var liteCheckRE = regexp.MustCompile(`(?i)\bCHECK\s*\(`)

// meta reads the schema from sqlite_master and the pragmas.
func (e *sqliteEngine) meta(ctx context.Context) (*meta, error) {
	m := &meta{}
	r := e.rows(ctx, "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY rowid")
	if r.err != nil {
		return nil, r.err
	}
	for _, row := range r.rows {
		name := strings.Trim(row[0].exact, "'")
		ddl := strings.Trim(row[1].exact, "'")
		t := &mtable{name: name}
		cols := e.rows(ctx, `SELECT name, type, "notnull", pk, hidden FROM pragma_table_xinfo('`+name+`') ORDER BY cid`)
		if cols.err != nil {
			return nil, cols.err
		}
		var pk [][2]string
		for _, c := range cols.rows {
			cname, typ := strings.Trim(c[0].exact, "'"), strings.Trim(c[1].exact, "'")
			col := mcol{name: cname, sqlType: typ, cat: sqliteCategory(typ), notNull: c[2].exact == "1", gen: c[4].exact == "2" || c[4].exact == "3"}
			if col.gen {
				col.genExpr = liteGenerated(ddl, cname)
			}
			if coll := liteCollation(ddl, cname); coll != "" {
				col.collate, col.nondet = coll, !strings.EqualFold(coll, "binary")
			}
			t.cols = append(t.cols, col)
			if c[3].exact != "0" {
				pk = append(pk, [2]string{c[3].exact, cname})
			}
		}
		for i := 1; i <= len(pk); i++ {
			for _, p := range pk {
				if p[0] == strconv.Itoa(i) {
					t.pk = append(t.pk, p[1])
				}
			}
		}
		fks := e.rows(ctx, `SELECT id, "from", "table", coalesce("to", '') FROM pragma_foreign_key_list('`+name+`') ORDER BY id, seq`)
		if fks.err != nil {
			return nil, fks.err
		}
		last := ""
		for _, f := range fks.rows {
			if f[0].exact != last {
				t.fks = append(t.fks, mfk{ref: strings.Trim(f[2].exact, "'")})
				last = f[0].exact
			}
			fk := &t.fks[len(t.fks)-1]
			fk.cols = append(fk.cols, strings.Trim(f[1].exact, "'"))
			fk.refCols = append(fk.refCols, strings.Trim(f[3].exact, "'"))
		}
		for _, loc := range liteCheckRE.FindAllStringIndex(ddl, -1) {
			if body, ok := balanced(ddl[loc[1]-1:]); ok {
				t.checks = append(t.checks, body)
			}
		}
		m.tables = append(m.tables, t)
	}
	return m, nil
}

// liteCollation finds the COLLATE clause of column col in a CREATE TABLE.
func liteCollation(ddl, col string) string {
	re := regexp.MustCompile(`(?im)^\s*"?` + regexp.QuoteMeta(col) + `"?\s+[^,\n]*\bCOLLATE\s+(\w+)`)
	if m := re.FindStringSubmatch(ddl); m != nil {
		return m[1]
	}
	return ""
}

// liteGenerated finds the expression of generated column col.
func liteGenerated(ddl, col string) string {
	re := regexp.MustCompile(`(?im)^\s*"?` + regexp.QuoteMeta(col) + `"?\s+[^,\n]*?\bAS\s*\(`)
	if loc := re.FindStringIndex(ddl); loc != nil {
		if body, ok := balanced(ddl[loc[1]-1:]); ok {
			return body
		}
	}
	return ""
}

// balanced returns the parenthesised text s starts with, parentheses
// included.
func balanced(s string) (string, bool) {
	depth, inStr := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			inStr = !inStr
		case inStr:
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return s[:i+1], true
			}
		}
	}
	return "", false
}
