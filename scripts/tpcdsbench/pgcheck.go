package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// pgChecker asks a real PostgreSQL whether a statement is valid over the
// schema (EXPLAIN, nothing run): a reference our planner refuses is then
// told apart from one PostgreSQL refuses too, and a mutant PostgreSQL
// refuses is no bug anyone could ship.
type pgChecker struct {
	cluster *pgtest.Cluster // nil when connected to a server of the caller's
	conn    *pgx.Conn
}

// startPG connects to connString (a superuser's, naming dbname=postgres)
// or, when it is empty, to a throwaway cluster it starts, and creates
// the schema in a fresh database.
func startPG(ctx context.Context, connString, ddl string) (_ *pgChecker, err error) {
	c := &pgChecker{}
	defer func() {
		if err != nil {
			c.close()
		}
	}()
	if connString == "" {
		if c.cluster, err = pgtest.Start(pgtest.Options{}); err != nil {
			return nil, err
		}
		connString = c.cluster.ConnString(pgtest.SuperUser, "")
	}
	admin, err := pgx.Connect(ctx, connString)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer admin.Close(ctx)
	for _, s := range []string{"DROP DATABASE IF EXISTS tpcdsbench", "CREATE DATABASE tpcdsbench TEMPLATE template0 ENCODING 'UTF8'"} {
		if _, err := admin.Exec(ctx, s); err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
	}
	if c.conn, err = pgx.Connect(ctx, strings.Replace(connString, "dbname=postgres", "dbname=tpcdsbench", 1)); err != nil {
		return nil, fmt.Errorf("connect tpcdsbench: %w", err)
	}
	if _, err := c.conn.Exec(ctx, ddl); err != nil {
		return nil, fmt.Errorf("schema.sql on PostgreSQL: %w", err)
	}
	return c, nil
}

// explain returns PostgreSQL's refusal of sql, or "".
func (c *pgChecker) explain(ctx context.Context, sql string) string {
	if _, err := c.conn.Exec(ctx, "EXPLAIN "+sql); err != nil {
		return firstLine(err.Error())
	}
	return ""
}

// close disconnects and stops the throwaway cluster; it may be called on
// nil and more than once.
func (c *pgChecker) close() {
	if c == nil {
		return
	}
	if c.conn != nil {
		_ = c.conn.Close(context.Background())
		c.conn = nil
	}
	if c.cluster != nil {
		_ = c.cluster.Stop()
		c.cluster = nil
	}
}
