package judging_test

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/planner/catalog"
	"github.com/pgequiv/pgequiv/proxy/dbfree"
	"github.com/pgequiv/pgequiv/proxy/judgepool"
	"github.com/pgequiv/pgequiv/proxy/judging"
)

func init() { judging.StartTestDBFree = startTestDBFree }

// startTestDBFree serves database-free mode with judger on schema on a
// free port and returns its connection string.
func startTestDBFree(t testing.TB, schema *catalog.Schema, judger judgepool.Backend, logger *slog.Logger) string {
	t.Helper()
	srv, err := dbfree.New(dbfree.Options{Schema: schema, Judger: judger, Logger: logger, VerdictTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-served; !errors.Is(err, dbfree.ErrServerClosed) {
			t.Errorf("dbfree Serve: %v", err)
		}
	})
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	return fmt.Sprintf("host=%s port=%s user=tester dbname=pgequiv sslmode=disable connect_timeout=10", host, port)
}
