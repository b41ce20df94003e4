package judging

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestBypassShadowedBuiltin (issue 34, item 4): a function outside
// pg_catalog with a built-in's name (here public.reverse(varchar), which
// PostgreSQL prefers over pg_catalog.reverse(text) for a varchar
// argument: an exact match beats a cast) runs where the judge models
// the built-in. A judged statement calling that name is refused in
// enforce mode (PGQ02, naming it), one that does not is judged.
func TestBypassShadowedBuiltin(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	set := introspectedBypass(t, ctx)
	direct := kennelDirect(t, ctx)
	if _, err := direct.Exec(ctx, `CREATE OR REPLACE FUNCTION public.reverse(varchar) RETURNS text
		LANGUAGE sql IMMUTABLE AS $$SELECT $1::text$$`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = direct.Exec(ctx, "DROP FUNCTION IF EXISTS public.reverse(varchar)") })
	// What the refusal prevents: PostgreSQL runs the user's function.
	var got string
	if err := direct.QueryRow(ctx, "SELECT reverse('ab'::varchar)").Scan(&got); err != nil || got != "ab" {
		t.Fatalf("reverse('ab'::varchar) = %q (%v): the shadowing does not hold, the case shows nothing", got, err)
	}
	e := startJudgeProxy(t, set, JudgingOptions{})
	conn, _ := e.connectNotices(t, ctx, kennelDB)
	q := "SELECT count(*) FROM owners WHERE reverse(first_name) = 'evE' " + tagRef("SELECT count(*) FROM owners WHERE reverse(first_name) = 'evE'")
	err := simpleExec(ctx, conn, q)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != SQLStateUnverified || !strings.Contains(pgErr.Message, "it calls reverse, which a function outside pg_catalog is also named") {
		t.Fatalf("got %v, want a PGQ02 refusal naming reverse", err)
	}
	if err := simpleExec(ctx, conn, countOwner+" "+tagRef(countStar)); err != nil {
		t.Fatalf("a statement without the name: %v", err)
	}
}
