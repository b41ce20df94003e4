package tag_test

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/internal/sqltext"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// The differential guard (issue 34): the proxy decides what a client's
// Query does from its own reading of the text (tag.Split: statement
// boundaries, tags, side-effect classes). Every bypass found so far was a
// text the proxy read differently from the server (an E-string under
// standard_conforming_strings off, a data-modifying WITH, a tag in a
// line comment). The guard generates Query texts from pieces that are
// hard to read (quotes, dollar quotes, nested and line comments holding
// semicolons, E-strings, Unicode escapes, multi-statement texts, writes
// wrapped in WITH, EXPLAIN ANALYZE, DO and CREATE TABLE AS) and checks
// them against what PostgreSQL itself executes: the statements it runs
// (one result, with its command tag, per statement) must be the
// statements Split finds, each starting with the command the server
// names, and every statement that wrote (each writing piece writes a
// marker row numbered by its position) must be one Split classes as
// having side effects. Client encodings other than UTF8 are the relay's
// to refuse (a non-ASCII judged statement under them is refused whole:
// proxy/judging's TestBypassClientEncoding); the guard's texts are ASCII.
//
// CI runs guardCases texts; DIFFGUARD_N=100000 (scripts/diffguard.sh)
// runs more, and `go test -fuzz FuzzSplitMatchesServer ./proxy/tag` lets
// the fuzzer pick the seeds.

const guardDDL = `CREATE TABLE g (id int);
CREATE TABLE g_read (a int, "b;c" text);
INSERT INTO g_read VALUES (1, 'x');`

// guardCases is how many texts a CI run checks.
const guardCases = 300

// guardPiece is a template of one or more statements: {i} is the
// position in the text of its writing statement, the marker it leaves in
// g (or the suffix of the table it creates). std and bs say what it is
// with standard_conforming_strings on and off.
type guardPiece struct {
	sql     string
	std, bs guardShape
}

// guardShape: n statements (0: the piece is not valid SQL under that
// setting), the one at offset write writes (-1: none).
type guardShape struct{ n, write int }

var (
	read1  = guardShape{1, -1}
	write1 = guardShape{1, 0}
	no     = guardShape{}
)

// guardPieces: reads, then writes, then texts that read differently
// under the two string settings.
var guardPieces = []guardPiece{
	{`SELECT 1`, read1, read1},
	{`SELECT ';' AS a`, read1, read1},
	{`SELECT 'it''s; fine'`, read1, read1},
	{`SELECT $$ ; ' $$`, read1, read1},
	{`SELECT $t$ ;'$$ ; $t$`, read1, read1},
	{`SELECT "b;c" FROM g_read`, read1, read1},
	{`SELECT 1 /* ; */ + 1`, read1, read1},
	{`SELECT 1 /* nested /* ; */ still ; */`, read1, read1},
	{"SELECT 2 -- ; a line comment\n", read1, read1},
	{`VALUES ('1'), (';')`, read1, read1},
	{`TABLE g_read`, read1, read1},
	{`WITH x AS (SELECT ';' AS s) SELECT s FROM x`, read1, read1},
	{`SELECT E'a\';b'`, read1, read1},
	{`SELECT E'\\'`, read1, read1},
	{`SELECT U&'d\0061t\+000061;'`, read1, no},
	{`EXPLAIN SELECT ';'`, read1, read1},
	{`SHOW search_path`, read1, read1},
	{`SELECT count(*) FROM g WHERE id < 0`, read1, read1},
	{`SELECT '/*' AS a, '--' AS b`, read1, read1},
	{`SELECT 1 AS "x""; y"`, read1, read1},
	{`INSERT INTO g VALUES ({i})`, write1, write1},
	{`INSERT INTO g SELECT {i} /* ; */ WHERE ';' = ';'`, write1, write1},
	{`WITH w AS (INSERT INTO g VALUES ({i}) RETURNING id) SELECT id FROM w`, write1, write1},
	{`WITH w AS (INSERT INTO g VALUES ({i}) RETURNING id) SELECT ';'`, write1, write1},
	{`WITH r AS (SELECT 1), w AS (INSERT INTO g SELECT {i} FROM r RETURNING id) SELECT 1`, write1, write1},
	{`EXPLAIN ANALYZE INSERT INTO g VALUES ({i})`, write1, write1},
	{`EXPLAIN (ANALYZE, COSTS OFF) WITH w AS (INSERT INTO g VALUES ({i}) RETURNING 1) SELECT 1`, write1, write1},
	{`DO $$ BEGIN INSERT INTO g VALUES ({i}); END $$`, write1, write1},
	{`DO $d$ BEGIN PERFORM ';'; INSERT INTO g VALUES ({i}); END $d$`, write1, write1},
	{`CREATE TEMP TABLE tt{i} AS SELECT ';' AS s`, write1, write1},
	{`SELECT ';' AS s INTO TEMP tt{i}`, write1, write1},
	{`UPDATE g SET id = id WHERE id = -1; INSERT INTO g VALUES ({i})`, guardShape{2, 1}, guardShape{2, 1}},
	// Backslashes: 'a\' is a whole string with standard strings on, and
	// opens one that \' does not close with them off.
	{`SELECT 'a\';b'`, no, read1},
	{`SELECT 'a\'`, read1, no},
	// The E-string attack: with standard strings a SELECT and an INSERT,
	// without them one SELECT of a string.
	{"SELECT 'x\\'; INSERT INTO g VALUES ({i}); --'\n", guardShape{2, 1}, read1},
}

// guardSeparators go between statements (the last may end the text).
var guardSeparators = []string{";", ";\n", " ;  ", ";/* c; */", "; -- c;\n", ";\n\n", "/* ; */;"}

// guardText builds the text of seed: n statements of the pieces valid
// under strs, and the positions of those that write.
func guardText(seed uint64, strs sqltext.Strings) (string, map[int]bool) {
	r := rand.New(rand.NewPCG(seed, 0x9d2c5680))
	pieces := 1 + r.IntN(4)
	var b strings.Builder
	if r.IntN(4) == 0 {
		b.WriteString("/* lead; */ ")
	}
	writes := map[int]bool{}
	at := 0 // statements so far
	for k := 0; k < pieces; k++ {
		var p guardPiece
		var sh guardShape
		for {
			p = guardPieces[r.IntN(len(guardPieces))]
			if sh = p.std; strs == sqltext.BackslashStrings {
				sh = p.bs
			}
			if sh.n > 0 {
				break
			}
		}
		mark := at + max(sh.write, 0)
		b.WriteString(strings.ReplaceAll(p.sql, "{i}", strconv.Itoa(mark)))
		if sh.write >= 0 {
			writes[mark] = true
		}
		at += sh.n
		if k < pieces-1 || r.IntN(2) == 0 {
			b.WriteString(guardSeparators[r.IntN(len(guardSeparators))])
		}
	}
	return b.String(), writes
}

// guardServer is a throwaway PostgreSQL with the guard's tables.
func guardServer(t testing.TB) *pgconn.PgConn {
	t.Helper()
	ctx := context.Background()
	pg := pgtest.New(t, pgtest.Options{})
	conn, err := pgconn.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	if _, err := conn.Exec(ctx, guardDDL).ReadAll(); err != nil {
		t.Fatal(err)
	}
	return conn
}

// guardRun runs sql on the server in a transaction it rolls back, under
// strs, and returns each statement's command tag and the markers the
// statements left.
func guardRun(ctx context.Context, conn *pgconn.PgConn, sql string, strs sqltext.Strings) ([]string, map[int]bool, error) {
	scs := "on"
	if strs == sqltext.BackslashStrings {
		scs = "off"
	}
	if _, err := conn.Exec(ctx, "BEGIN; SET LOCAL standard_conforming_strings = "+scs+"; SET LOCAL escape_string_warning = off").ReadAll(); err != nil {
		return nil, nil, err
	}
	defer func() { conn.Exec(ctx, "ROLLBACK").ReadAll() }()
	results, err := conn.Exec(ctx, sql).ReadAll()
	if err != nil {
		return nil, nil, err
	}
	var tags []string
	for _, r := range results {
		if r.Err != nil {
			return nil, nil, r.Err
		}
		tags = append(tags, r.CommandTag.String())
	}
	marks, err := conn.Exec(ctx, `SELECT id FROM g UNION ALL SELECT substr(relname, 3)::int FROM pg_class WHERE relname ~ '^tt[0-9]+$' AND relpersistence = 't'`).ReadAll()
	if err != nil {
		return nil, nil, err
	}
	wrote := map[int]bool{}
	for _, row := range marks[0].Rows {
		i, err := strconv.Atoi(string(row[0]))
		if err != nil {
			return nil, nil, err
		}
		wrote[i] = true
	}
	return tags, wrote, nil
}

// checkGuard compares the proxy's reading of sql with the server's run.
func checkGuard(t *testing.T, ctx context.Context, conn *pgconn.PgConn, sql string, strs sqltext.Strings, writes map[int]bool) {
	t.Helper()
	tags, wrote, err := guardRun(ctx, conn, sql, strs)
	if err != nil {
		t.Fatalf("the server refused a generated text (a generator bug): %v\n%s", err, sql)
	}
	stmts, err := tag.Split(sql, strs)
	if err != nil {
		t.Fatalf("Split: %v on a text the server ran (%d statements)\n%s", err, len(tags), sql)
	}
	if len(stmts) != len(tags) {
		t.Fatalf("Split found %d statements, the server ran %d (%v)\n%s", len(stmts), len(tags), tags, sql)
	}
	for i, st := range stmts {
		text := sql[st.Start:st.End]
		if want, got := leadingCommand(text), tagVerb(tags[i]); want != "" && want != got {
			t.Errorf("statement %d: Split's text starts with %s, the server ran %s (%q)\n%s", i, want, got, text, sql)
		}
		if wrote[i] && !st.Class.HasSideEffects() {
			t.Errorf("statement %d wrote on the server but Split classes it %d without side effects (%q)\n%s", i, st.Class, text, sql)
		}
		if writes[i] != wrote[i] {
			t.Errorf("statement %d: the generator expected writes=%v, the server wrote=%v (a generator bug)\n%s", i, writes[i], wrote[i], sql)
		}
	}
}

// leadingCommand is the command the server names for a statement
// starting as text does ("" where it depends on more than the first
// word: WITH, EXPLAIN ANALYZE's, a parenthesized query).
func leadingCommand(text string) string {
	s := text
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		switch {
		case strings.HasPrefix(s, "--"):
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				s = s[i+1:]
				continue
			}
			return ""
		case strings.HasPrefix(s, "/*"):
			depth, j := 0, 0
			for j < len(s)-1 {
				switch s[j : j+2] {
				case "/*":
					depth, j = depth+1, j+2
					continue
				case "*/":
					depth, j = depth-1, j+2
					if depth == 0 {
						s = s[j:]
						goto next
					}
					continue
				}
				j++
			}
			return ""
		}
		break
	next:
	}
	word := strings.ToUpper(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\n' || r == '(' || r == '\t' })[0])
	switch word {
	case "VALUES", "TABLE":
		return "SELECT"
	case "WITH":
		return ""
	case "CREATE":
		if strings.Contains(strings.ToUpper(s), " AS ") {
			return "SELECT" // CREATE TABLE AS reports SELECT n
		}
	}
	return word
}

// tagVerb is a command tag's command ("INSERT 0 1" is INSERT).
func tagVerb(tag string) string {
	if f := strings.Fields(tag); len(f) > 0 {
		return f[0]
	}
	return ""
}

// TestSplitMatchesServer is the guard's CI run: guardCases texts under
// each standard_conforming_strings setting.
func TestSplitMatchesServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	n := guardCases
	if v := os.Getenv("DIFFGUARD_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatalf("DIFFGUARD_N: %v", err)
		}
	}
	conn := guardServer(t)
	ctx := context.Background()
	start := time.Now()
	for seed := uint64(0); seed < uint64(n); seed++ {
		for _, strs := range []sqltext.Strings{sqltext.StandardStrings, sqltext.BackslashStrings} {
			sql, writes := guardText(seed, strs)
			checkGuard(t, ctx, conn, sql, strs, writes)
			if t.Failed() {
				t.Fatalf("seed %d, standard strings %v", seed, strs == sqltext.StandardStrings)
			}
		}
	}
	t.Logf("%d texts, each under both string settings, agree with the server (%v)", n, time.Since(start).Round(time.Millisecond))
}

// FuzzSplitMatchesServer lets the fuzzer choose the guard's seeds.
func FuzzSplitMatchesServer(f *testing.F) {
	if testing.Short() {
		f.Skip("starts PostgreSQL")
	}
	for _, s := range []uint64{0, 1, 7, 42, 1 << 40} {
		f.Add(s, false)
		f.Add(s, true)
	}
	conn := guardServer(f)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, seed uint64, backslash bool) {
		strs := sqltext.StandardStrings
		if backslash {
			strs = sqltext.BackslashStrings
		}
		sql, writes := guardText(seed, strs)
		checkGuard(t, ctx, conn, sql, strs, writes)
	})
}
