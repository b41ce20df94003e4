package build

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestArithTypeMatchesPostgres: for each arithmetic operator between
// operands of the families' usual types, the family arithType gives is
// that of the type PostgreSQL 15 resolves the operator to
// (pg_typeof(NULL::l op NULL::r)); a pair PostgreSQL has no operator
// for is not asked. A wrong family is a wrong plan: the plan typed date
// + interval a date, so CAST(d + interval '1 hour' AS date) dropped its
// cast as an identity and was proved equal to d + interval '1 hour'.
func TestArithTypeMatchesPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	ctx := context.Background()
	pg := pgtest.New(t, pgtest.Options{})
	conn, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	types := []string{"integer", "bigint", "numeric", "double precision", "date", "timestamp", "interval", "jsonb"}
	asked := 0
	for _, op := range []string{"+", "-", "*", "/"} {
		for _, l := range types {
			for _, r := range types {
				var got string
				q := "SELECT pg_typeof(NULL::" + l + " " + op + " NULL::" + r + ")::text"
				tx, err := conn.Begin(ctx)
				if err != nil {
					t.Fatal(err)
				}
				err = tx.QueryRow(ctx, q).Scan(&got)
				_ = tx.Rollback(ctx)
				if err != nil {
					continue // no such operator
				}
				asked++
				want := catalog.TypeFromName(got)
				if have := arithType(op, catalog.TypeFromName(l), catalog.TypeFromName(r)); have != want {
					t.Errorf("%s %s %s: PostgreSQL %s (%s), arithType %s", l, op, r, got, want, have)
				}
			}
		}
	}
	if asked < 20 {
		t.Errorf("only %d operators asked", asked)
	}
}
