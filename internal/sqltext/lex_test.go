package sqltext

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// TestLexMatchesPgQuery: on texts where a tag comment sits after, inside
// or among literals, comments and dollar quotes, Lex finds the block
// comments pg_query's scanner finds.
func TestLexMatchesPgQuery(t *testing.T) {
	const tagc = "/*pgequiv_ref='SELECT%201'*/"
	for _, sql := range []string{
		`SELECT E'O\'Brien' ` + tagc,
		`SELECT E'O\' ` + tagc + ` '`,
		`SELECT 'O\' ` + tagc + ` '`,
		`SELECT 'a\' ` + tagc,
		`SELECT a$b, c$ FROM t ` + tagc,
		`SELECT $q$ ` + tagc + ` $q$`,
		`SELECT $q$ $$ $q$ ` + tagc,
		`SELECT 1 /* /* */ ` + tagc + ` */`,
		`SELECT 1 /* /* */ */ ` + tagc,
		"SELECT 1 -- " + tagc,
		"SELECT 'a'\n'" + tagc + "'",
		"SELECT '" + tagc,
	} {
		checkAgainstPgQuery(t, sql)
	}
}

func TestLexErrors(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		strs Strings
	}{
		{"SELECT 'abc", StandardStrings},
		{`SELECT 'abc\'`, BackslashStrings},
		{"SELECT /* /* */", StandardStrings},
		{`SELECT "abc`, StandardStrings},
		{"SELECT $a$ x $b$", StandardStrings},
		{"SELECT U&'x'", BackslashStrings},
	} {
		if _, err := Lex(tc.sql, tc.strs); !errors.Is(err, ErrLex) {
			t.Errorf("Lex(%q, %v) = %v, want ErrLex", tc.sql, tc.strs, err)
		}
	}
}

// pgComments is pg_query's view; nil when its scanner rejects sql.
func pgComments(sql string) [][2]int {
	res, err := pg.Scan(sql)
	if err != nil {
		return nil
	}
	out := [][2]int{}
	for _, tk := range res.Tokens {
		if tk.Token == pg.Token_C_COMMENT {
			out = append(out, [2]int{int(tk.Start), int(tk.End)})
		}
	}
	return out
}

// checkAgainstPgQuery compares Lex with pg_query's scanner on sql
// (standard strings): when both accept it, they find the same block
// comments; what Lex rejects, pg_query rejects too.
func checkAgainstPgQuery(t *testing.T, sql string) {
	t.Helper()
	want := pgComments(sql)
	toks, err := Lexer{}.Lex(sql)
	if err != nil {
		if want != nil {
			t.Fatalf("Lex rejects %q (%v); pg_query accepts it", sql, err)
		}
		return
	}
	if want == nil {
		return // pg_query (PostgreSQL 16) rejects more: numeric junk
	}
	got := [][2]int{}
	for _, tk := range toks {
		if tk.Kind == TokBlockComment {
			got = append(got, [2]int{tk.Start, tk.End})
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%q: Lex comments %v, pg_query %v", sql, got, want)
	}
}

// genSQL builds a text from the pieces that decide lexing: strings of
// every kind with quotes and backslashes inside, comments (nested),
// dollar quotes, identifiers with $, numbers, continuations.
func genSQL(r *rand.Rand) string {
	pieces := []string{
		"SELECT ", " ", "\n", "'", "''", `\`, `\'`, "E'", "e'", "B'", "X'", "N'", "U&'", `U&"`, `"`, `""`,
		"/*", "*/", "/**/", "--", "-", "/", "*", "$", "$$", "$a$", "$1", "a$b", "x$", "1", "1e", "0x", "_",
		";", "a", "tag", "/*pgequiv_ref='x'*/", "'\n'", "' -- c\n'", "\t", "+/*", "*/*", "\r", "\xc3\xa9", "é'",
	}
	var b strings.Builder
	for n := r.IntN(14) + 1; n > 0; n-- {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func TestLexMatchesPgQueryGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 2))
	for i := 0; i < 20000; i++ {
		checkAgainstPgQuery(t, genSQL(r))
	}
}

func FuzzLex(f *testing.F) {
	for _, s := range []string{
		`SELECT E'O\'Brien' /*pgequiv_ref='x'*/`, "SELECT 1 /* /* */ */", "SELECT $q$ /* $q$", "SELECT a$b /*c*/",
		"SELECT 'a'\n'b' /*c*/", "SELECT U&'\\0041' UESCAPE '!'", "SELECT x'1F' /**/", "SELECT 1;/*t*/SELECT 2",
	} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, sql string, backslash bool) {
		if strings.IndexByte(sql, 0) >= 0 {
			return // a Query message cannot hold NUL
		}
		strs := StandardStrings
		if backslash {
			strs = BackslashStrings
		}
		toks, err := Lex(sql, strs)
		last := 0
		for _, tk := range toks {
			if tk.Start < last || tk.End <= tk.Start || tk.End > len(sql) {
				t.Fatalf("token %+v out of order or bounds (last %d)", tk, last)
			}
			last = tk.End
		}
		if err == nil {
			if _, serr := Split(sql, strs); serr != nil && !errors.Is(serr, ErrLex) {
				t.Fatalf("Split: %v", serr)
			}
		}
		if !backslash {
			checkAgainstPgQuery(t, sql)
		}
	})
}
