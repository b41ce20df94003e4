package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // the SQLite engine Spider's queries run on

	"github.com/pgequiv/pgequiv/internal/sqlitetest"
)

// engine is a real database holding one schema's empty tables; run fills
// them with inserts inside a transaction it rolls back, and returns each
// query's rows (or its error).
type engine interface {
	run(ctx context.Context, inserts []string, queries ...string) ([]rows, error)
	close()
}

// rows is a query's result as the engine printed it, or its error.
type rows struct {
	data [][]string
	err  error
}

// differ reports whether two results differ as bags of rows, or, when
// ordered, as lists. Errors on either side tell nothing.
func differ(a, b rows, ordered bool) bool {
	if a.err != nil || b.err != nil {
		return false
	}
	if len(a.data) != len(b.data) {
		return true
	}
	key := func(r []string) string { return strings.Join(r, "\x00") }
	x := make([]string, len(a.data))
	y := make([]string, len(b.data))
	for i := range a.data {
		x[i], y[i] = key(a.data[i]), key(b.data[i])
	}
	if !ordered {
		slices.Sort(x)
		slices.Sort(y)
	}
	return !slices.Equal(x, y)
}

// pgEngine is one database of a PostgreSQL cluster.
type pgEngine struct{ conn *pgx.Conn }

func openPG(ctx context.Context, connString, name, ddl string) (*pgEngine, error) {
	admin, err := pgx.Connect(ctx, connString)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer admin.Close(ctx)
	db := "mutation_" + strings.ToLower(name)
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+db); err != nil {
		return nil, fmt.Errorf("drop database %s: %w", db, err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+db+" TEMPLATE template0 ENCODING 'UTF8'"); err != nil {
		return nil, fmt.Errorf("create database %s: %w", db, err)
	}
	conn, err := pgx.Connect(ctx, strings.Replace(connString, "dbname=postgres", "dbname="+db, 1))
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", db, err)
	}
	if _, err := conn.Exec(ctx, ddl); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	// A mutant may run away (a dropped join predicate on a big state):
	// it is cut, and its error tells nothing.
	if _, err := conn.Exec(ctx, "SET statement_timeout = '5s'"); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("statement_timeout: %w", err)
	}
	return &pgEngine{conn: conn}, nil
}

func (e *pgEngine) run(ctx context.Context, inserts []string, queries ...string) ([]rows, error) {
	tx, err := e.conn.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	for _, s := range inserts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return nil, fmt.Errorf("insert refused: %w", err)
		}
	}
	out := make([]rows, len(queries))
	for i, q := range queries {
		// Each query in a savepoint: an error in one leaves the state
		// usable for the next.
		if _, err := tx.Exec(ctx, "SAVEPOINT q"); err != nil {
			return nil, fmt.Errorf("savepoint: %w", err)
		}
		out[i] = pgQuery(ctx, tx, q)
		if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT q"); err != nil {
			return nil, fmt.Errorf("rollback to savepoint: %w", err)
		}
	}
	return out, nil
}

func pgQuery(ctx context.Context, tx pgx.Tx, q string) rows {
	rs, err := tx.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return rows{err: err}
	}
	defer rs.Close()
	var out rows
	for rs.Next() {
		raw := rs.RawValues()
		row := make([]string, len(raw))
		for i, v := range raw {
			if v == nil {
				row[i] = "NULL"
			} else {
				row[i] = "'" + string(v)
			}
		}
		out.data = append(out.data, row)
	}
	out.err = rs.Err()
	return out
}

func (e *pgEngine) close() { e.conn.Close(context.Background()) }

// sqliteEngine is an in-memory SQLite database (modernc.org/sqlite).
type sqliteEngine struct{ db *sql.DB }

func openSQLite(ctx context.Context, ddl string) (*sqliteEngine, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	db.SetMaxOpenConns(1) // one connection: one in-memory database
	if _, err := db.ExecContext(ctx, sqlitetest.DDL(ddl)); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite schema: %w", err)
	}
	return &sqliteEngine{db: db}, nil
}

func (e *sqliteEngine) run(ctx context.Context, inserts []string, queries ...string) ([]rows, error) {
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	for _, s := range inserts {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return nil, fmt.Errorf("insert refused: %w", err)
		}
	}
	out := make([]rows, len(queries))
	for i, q := range queries {
		out[i] = sqliteQuery(ctx, tx, q)
	}
	return out, nil
}

func sqliteQuery(ctx context.Context, tx *sql.Tx, q string) rows {
	rs, err := tx.QueryContext(ctx, q)
	if err != nil {
		return rows{err: err}
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return rows{err: err}
	}
	var out rows
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return rows{err: err}
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = sqlitetest.Canon(v)
		}
		out.data = append(out.data, row)
	}
	out.err = rs.Err()
	if out.err == nil && len(out.data) > 10000 {
		out.err = errors.New("result too large")
	}
	return out
}

func (e *sqliteEngine) close() { e.db.Close() }
