package judging

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/proxy/tag"
)

// TestBusyProxyAnswersUnread: while every read slot is taken, a tagged
// statement is answered unread once it has waited half its verdict
// timeout, in the strictest mode its tag could name: annotate says why in
// its NOTICE, enforce refuses it (PGQ02) and its write does not happen.
// An untagged statement under a match: catalog waits for its turn and is
// judged; once a slot is free, tagged statements are judged again.
func TestBusyProxyAnswersUnread(t *testing.T) {
	cat, err := tag.ParseCatalog([]byte(kennelCatalg + "  - id: strict\n    mode: enforce\n    reference: " + countStar + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	set := annotateSettings(t)
	set.Catalog = cat
	set.EnforceUnknown = true
	set.VerdictTimeout = 400 * time.Millisecond
	e := startJudgeProxy(t, set, JudgingOptions{ReadSlots: 1})
	ctx := testCtx(t, 60*time.Second)
	conn, notices := e.connectNotices(t, ctx, kennelDB)

	e.j.admit.slots <- struct{}{} // the proxy is busy reading another statement
	start := time.Now()
	var n int
	if err := conn.QueryRow(ctx, withComment(countOwner, countStar), pgx.QueryExecModeSimpleProtocol).Scan(&n); err != nil || n != 1 {
		t.Fatalf("tagged statement while busy, annotate: %d, %v", n, err)
	}
	if d := time.Since(start); d < set.VerdictTimeout/2 {
		t.Errorf("answered unread after %v, before half the verdict timeout", d)
	}
	if ns := notices(); len(ns) != 1 || !strings.Contains(ns[0], ComponentBusy) {
		t.Fatalf("annotate notices %q, want one saying %q", ns, ComponentBusy)
	}
	// Its tag, read by the lexer alone, names the enforce-mode entry.
	byID := countOwner + " " + tag.Encode(tag.KV{Key: tag.KeyRefID, Value: "strict"})
	_, err = conn.Exec(ctx, byID, pgx.QueryExecModeSimpleProtocol)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified || !strings.Contains(pgErr.Message, ComponentBusy) {
		t.Fatalf("statement tagged with an enforce-mode entry while busy, annotate: %v", err)
	}

	set.Mode = ModeEnforce
	if err := e.j.Reload(set); err != nil {
		t.Fatal(err)
	}
	insert := withComment("WITH w AS (INSERT INTO owners (owner_id, first_name, last_name) VALUES (99, 'Eve', 'Mallory') RETURNING 1) SELECT count(*) FROM w", countStar)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		_, err := conn.Exec(ctx, insert, mode)
		// Refused for its side effects, which the lexer finds unparsed.
		if !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified || !strings.Contains(pgErr.Message, "not judged: INSERT (seen by the proxy's lexer") {
			t.Fatalf("%v: tagged write while busy, enforce: %v", mode, err)
		}
	}

	// An untagged statement that only a catalog match could judge waits:
	// answered unread, it would run unjudged.
	done := make(chan error, 1)
	go func() {
		var m int
		done <- conn.QueryRow(ctx, "SELECT count(owner_id) FROM dogs WHERE age > 1 AND owner_id > 0", pgx.QueryExecModeSimpleProtocol).Scan(&m)
	}()
	<-e.j.admit.slots // the other statement is read
	if err := <-done; err != nil {
		t.Fatalf("untagged catalog match after the wait: %v", err)
	}
	if err := conn.QueryRow(ctx, withComment(countOwner, countStar), pgx.QueryExecModeSimpleProtocol).Scan(&n); err != nil || n != 1 {
		t.Fatalf("tagged statement with a free slot: %d, %v", n, err)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM owners WHERE owner_id = 99").Scan(&n); err != nil || n != 0 {
		t.Fatalf("the refused write ran: %d rows, %v", n, err)
	}
	e.j.Wait()
	if st := statMap(e.j); st["busy_unread"] != 4 {
		t.Errorf("busy_unread %d, want 4 (stats %v)", st["busy_unread"], st)
	}
	if ns := notices(); len(ns) != 0 {
		t.Errorf("enforce mode notices %q", ns)
	}
}
