package equivalence_test

import (
	"context"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// TestJudgerSchemasDifferingInTypmod: one Judger serving two schemas that
// differ only in a column's declared type within one family (text and
// char(3), as after ALTER COLUMN ... TYPE) must not serve one schema's
// cached plans to the other. It did, as the schema fingerprint left the
// declared type out: under char(3), where 'a' and 'a  ' are equal, the
// pair was refuted with the text schema's counterexample.
func TestJudgerSchemasDifferingInTypmod(t *testing.T) {
	text, err := catalog.LoadDDL("CREATE TABLE t (c text)", catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	char3, err := catalog.LoadDDL("CREATE TABLE t (c char(3))", catalog.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	j, err := equivalence.NewJudger(equivalence.JudgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const ref, cand = "SELECT count(*) FROM t WHERE c = 'a'", "SELECT count(*) FROM t WHERE c = 'a  '"
	onText, err := j.Judge(ctx, text, ref, cand, equivalence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if onText.Label != equivalence.NotEquivalent {
		t.Fatalf("text: %s, want not_equivalent ('a' is not 'a  ')", onText.Label)
	}
	onChar, err := j.Judge(ctx, char3, ref, cand, equivalence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := equivalence.Judge(ctx, char3, ref, cand, equivalence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if onChar.Label == equivalence.NotEquivalent || onChar.Label != fresh.Label {
		t.Fatalf("char(3) after text: %s, judged alone: %s (char(3) ignores trailing blanks: never not_equivalent)", onChar.Label, fresh.Label)
	}
}
