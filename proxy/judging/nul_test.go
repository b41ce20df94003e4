package judging

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestJudgeNULReference: a reference with a NUL byte (a tag value is
// URL-decoded, so %00 puts one there) is never judged as the text before
// the NUL. Annotate mode forwards the query and says why it cannot judge
// it; enforce mode with enforce_unknown refuses it; both count an error.
func TestJudgeNULReference(t *testing.T) {
	const (
		cand = "SELECT dog_id FROM dogs"
		ref  = "SELECT dog_id FROM dogs\x00 WHERE junk"
		want = "cannot judge: the reference contains a NUL byte at offset 23"
	)
	t.Run("annotate", func(t *testing.T) {
		e := startJudgeProxy(t, annotateSettings(t), JudgingOptions{})
		ctx := testCtx(t, 60*time.Second)
		conn, notices := e.connectNotices(t, ctx, kennelDB)
		for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
			rows, err := conn.Query(ctx, withComment(cand, ref), mode)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for rows.Next() {
				n++
			}
			if err := rows.Err(); err != nil || n == 0 {
				t.Fatalf("%v: %d rows, %v", mode, n, err)
			}
			ns := notices()
			if len(ns) != 1 || ns[0] != "pgequiv: "+want {
				t.Fatalf("%v: notices %q", mode, ns)
			}
		}
		if st := statMap(e.j); st["errors"] != 2 || st["equivalent"] != 0 {
			t.Errorf("stats %v", st)
		}
	})
	t.Run("enforce", func(t *testing.T) {
		set := annotateSettings(t)
		set.Mode, set.EnforceUnknown = ModeEnforce, true
		e := startJudgeProxy(t, set, JudgingOptions{})
		ctx := testCtx(t, 60*time.Second)
		conn, _ := e.connectNotices(t, ctx, kennelDB)
		_, err := conn.Exec(ctx, withComment(cand, ref))
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != SQLStateUnverified || !strings.Contains(pe.Message, want) || !strings.Contains(pe.Hint, `dogs\x00 WHERE`) {
			t.Fatalf("enforce: %v", err)
		}
		var n int
		if err := conn.QueryRow(ctx, "SELECT 7").Scan(&n); err != nil || n != 7 {
			t.Fatalf("after the refusal: %d, %v", n, err)
		}
	})
}
