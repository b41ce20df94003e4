package pgtest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Querier is a connection or a transaction.
type Querier interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}

// Rows runs q on db and returns its rows printed, in order where
// ordered, else sorted (a bag). The simple protocol returns every value
// in PostgreSQL's text form, as psql prints it: 7 of bigint and of
// numeric alike, 1.0 and 1.00 apart.
func Rows(ctx context.Context, db Querier, q string, ordered bool) ([]string, error) {
	rows, err := db.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var row []string
		for _, v := range rows.RawValues() {
			if v == nil {
				row = append(row, "NULL")
				continue
			}
			row = append(row, strconv.Quote(string(v)))
		}
		out = append(out, strings.Join(row, "|"))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	if !ordered {
		slices.Sort(out)
	}
	return out, nil
}

// Connect connects to c's database as the superuser; the test's cleanup
// closes the connection.
func (c *Cluster) Connect(t testing.TB) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.ConnString(SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn
}
