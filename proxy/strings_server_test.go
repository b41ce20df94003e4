package proxy

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// lexGen builds SELECT lists of literals read with backslash escapes
// (standard_conforming_strings off), with comments between them, and
// remembers where it put the block comments: the truth to check
// sqltext.Lex against.
type lexGen struct {
	r        *rand.Rand
	b        strings.Builder
	comments [][2]int
}

// body is literal or comment text holding what confuses a naive scanner.
func (g *lexGen) body(inString bool) string {
	pieces := []string{"a", "O", " ", "/*", "*/", "--", "$$", "$q", `"`, ";", "é", "E", "\n"}
	if inString {
		pieces = append(pieces, `\'`, "''", `\\`, `\n`, `\t`)
	} else {
		pieces = append(pieces, "'", "x'", `\`, "/* nested */")
	}
	var s strings.Builder
	for n := g.r.IntN(6); n > 0; n-- {
		p := pieces[g.r.IntN(len(pieces))]
		if !inString && (p == "/*" || p == "*/") {
			continue // an unbalanced nested comment ends the comment elsewhere
		}
		s.WriteString(p)
	}
	return s.String()
}

func (g *lexGen) literal() {
	switch g.r.IntN(5) {
	case 0:
		g.b.WriteString("'" + g.body(true) + "'")
	case 1:
		g.b.WriteString("E'" + g.body(true) + "'")
	case 2:
		g.b.WriteString("'" + g.body(true) + "'\n  -- between\n'" + g.body(true) + "'")
	case 3:
		b := strings.ReplaceAll(g.body(false), "$", "")
		g.b.WriteString("$t$" + b + "$t$")
	default:
		g.b.WriteString("'" + g.body(true) + "'::text")
	}
}

func (g *lexGen) comment() {
	if g.r.IntN(3) == 0 {
		g.b.WriteString(" -- " + strings.ReplaceAll(g.body(false), "\n", " ") + "\n")
		return
	}
	start := g.b.Len()
	g.b.WriteString("/*" + g.body(false) + "*/")
	g.comments = append(g.comments, [2]int{start, g.b.Len()})
}

func (g *lexGen) query() string {
	g.b.Reset()
	g.comments = nil
	g.b.WriteString("SELECT ")
	for i, n := 0, g.r.IntN(4)+1; i < n; i++ {
		if i > 0 {
			g.b.WriteString(", ")
		}
		if g.r.IntN(2) == 0 {
			g.comment()
		}
		g.literal()
		fmt.Fprintf(&g.b, " AS c%d ", i)
		if g.r.IntN(2) == 0 {
			g.comment()
		}
	}
	return g.b.String()
}

// rowsText runs sql as one simple Query and renders its rows (or error).
func rowsText(ctx context.Context, conn *pgconn.PgConn, sql string) string {
	rs, err := conn.Exec(ctx, sql).ReadAll()
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, r := range rs {
		if r.Err != nil {
			return "error: " + r.Err.Error()
		}
		for _, row := range r.Rows {
			for _, v := range row {
				fmt.Fprintf(&b, "%q|", v)
			}
		}
	}
	return b.String()
}

// TestLexBackslashStringsAgainstServer checks sqltext.Lex with
// standard_conforming_strings off against PostgreSQL itself: it finds
// exactly the block comments the generator wrote (none inside a literal,
// none missed), the server accepts each text, and the text the judge gets
// (bare strings given an E prefix) returns, with the setting on, exactly
// what the original returns with it off.
func TestLexBackslashStringsAgainstServer(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	off, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close(ctx)
	on, err := pgx.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer on.Close(ctx)
	if got := rowsText(ctx, off.PgConn(), "SET standard_conforming_strings = off; SET escape_string_warning = off"); strings.HasPrefix(got, "error") {
		t.Fatal(got)
	}
	g := &lexGen{r: rand.New(rand.NewPCG(19, 3))}
	for i := 0; i < 400; i++ {
		sql := g.query()
		toks, err := sqltext.Lex(sql, sqltext.BackslashStrings)
		if err != nil {
			t.Fatalf("%q: %v", sql, err)
		}
		var found [][2]int
		for _, tk := range toks {
			if tk.Kind == sqltext.TokBlockComment {
				found = append(found, [2]int{tk.Start, tk.End})
			}
		}
		if fmt.Sprint(found) != fmt.Sprint(g.comments) {
			t.Fatalf("%q:\nLex found comments %v, the text has %v", sql, found, g.comments)
		}
		want := rowsText(ctx, off.PgConn(), sql)
		if strings.HasPrefix(want, "error") {
			t.Fatalf("%q: the server rejects the generated text: %s", sql, want)
		}
		stmts, err := tag.Split(sql, sqltext.BackslashStrings)
		if err != nil || len(stmts) != 1 {
			t.Fatalf("%q: Split: %v, %d statements", sql, err, len(stmts))
		}
		if got := rowsText(ctx, on.PgConn(), stmts[0].Judged); got != want {
			t.Fatalf("%q:\njudged as %q\nwhich returns %s\nthe server returns %s", sql, stmts[0].Judged, got, want)
		}
	}
}
