package proxy

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// TestPgBouncerInFront puts pgbouncer (transaction pooling) in front of
// the proxy: pgbouncer authenticates to the proxy with SCRAM using its own
// client, multiplexes 40 clients onto a small pool, and resets server
// connections between clients.
func TestPgBouncerInFront(t *testing.T) {
	p := startProxy(t, upstreamOpts())
	b := pgtest.NewPgBouncer(t, pgtest.PgBouncerOptions{
		UpstreamHost: p.Host, UpstreamPort: p.Port, PoolSize: 4,
		Users: map[string]string{pgtest.ScramUser: pgtest.ScramPassword, pgtest.SuperUser: ""},
	})
	ctx := testCtx(t, 120*time.Second)

	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- func() error {
				cfg, err := pgx.ParseConfig(pgtest.ConnString(b.Host, b.Port, pgtest.ScramUser, ""))
				if err != nil {
					return err
				}
				// Transaction pooling: no session-level prepared statements.
				cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
				conn, err := pgx.ConnectConfig(ctx, cfg)
				if err != nil {
					return err
				}
				defer conn.Close(ctx)
				for j := range 10 {
					var who string
					var n int
					if err := conn.QueryRow(ctx, "SELECT current_user, $1::int * 2", i*100+j).Scan(&who, &n); err != nil {
						return err
					}
					if who != pgtest.ScramUser || n != 2*(i*100+j) {
						return fmt.Errorf("client %d got %q, %d", i, who, n)
					}
				}
				tx, err := conn.Begin(ctx)
				if err != nil {
					return err
				}
				defer tx.Rollback(context.Background())
				if _, err := tx.Exec(ctx, "CREATE TEMP TABLE bouncer_t (a int) ON COMMIT DROP"); err != nil {
					return err
				}
				return tx.Commit(ctx)
			}()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	// At most the pool of 4 for scram_user, plus one server connection
	// pgbouncer may keep from its readiness probe as postgres.
	if n := p.ActiveConns(); n > 5 {
		t.Errorf("proxy has %d connections; pgbouncer's pool is 4 (+1)", n)
	}
}
