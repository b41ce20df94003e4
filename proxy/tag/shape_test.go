package tag

import (
	"hash/fnv"
	"strconv"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/pgequiv/pgequiv/internal/sqltext"
)

const shapeTag = "/*pgequiv_ref='SELECT%201'*/"

// TestShapeKeyDistinct: texts that differ in anything but a plain
// literal's value (its kind, a sign, a cast, a prefix, a quoting, a
// parameter, a name) or in where the tag comment is get different keys.
func TestShapeKeyDistinct(t *testing.T) {
	cases := []struct{ a, b string }{
		{"SELECT a FROM t WHERE b = '1'::int", "SELECT a FROM t WHERE b = 1::int"},
		{"SELECT a FROM t WHERE b = -1", "SELECT a FROM t WHERE b = 1"},
		{"SELECT a FROM t WHERE d = date '2020-01-01'", "SELECT a FROM t WHERE d = '2020-01-01'"},
		{"SELECT a FROM t WHERE b = E'a'", "SELECT a FROM t WHERE b = 'a'"},
		{"SELECT a FROM t WHERE b = N'a'", "SELECT a FROM t WHERE b = 'a'"},
		{"SELECT a FROM t WHERE b = U&'a'", "SELECT a FROM t WHERE b = 'a'"},
		{"SELECT a FROM t WHERE b = X'1F'", "SELECT a FROM t WHERE b = '1F'"},
		{"SELECT a FROM t WHERE b = B'1'", "SELECT a FROM t WHERE b = '1'"},
		{"SELECT a FROM t WHERE b = $$a$$", "SELECT a FROM t WHERE b = 'a'"},
		{"SELECT a FROM t WHERE b = $$a$$", "SELECT a FROM t WHERE b = $$b$$"},
		{"SELECT a FROM t WHERE b = $1", "SELECT a FROM t WHERE b = 1"},
		{"SELECT a FROM t WHERE b = $1", "SELECT a FROM t WHERE b = $2"},
		{"SELECT a FROM t WHERE b = 1.5", "SELECT a FROM t WHERE b = 1"},
		{"SELECT a FROM t WHERE b = 2147483648", "SELECT a FROM t WHERE b = 2147483647"},
		{"SELECT a FROM t WHERE b = 1e5", "SELECT a FROM t WHERE b = 1e6"},
		{"SELECT a FROM t WHERE b = 1e-5", "SELECT a FROM t WHERE b = 1e-6"},
		{"SELECT a FROM t WHERE b = .5", "SELECT a FROM t WHERE b = .6"},
		{"SELECT a FROM t WHERE b = 0x1F", "SELECT a FROM t WHERE b = 0x2F"},
		{"SELECT a FROM t WHERE b = 1_000", "SELECT a FROM t WHERE b = 2_000"},
		{"SELECT a FROM t WHERE b = 'a'\n'b'", "SELECT a FROM t WHERE b = 'a'\n'c'"},
		{"SELECT a FROM t WHERE b = TRUE", "SELECT a FROM t WHERE b = FALSE"},
		{"SELECT a FROM t WHERE b = NULL", "SELECT a FROM t WHERE b = 1"},
		{`SELECT "a" FROM t`, `SELECT "b" FROM t`},
		{"SELECT a1 FROM t", "SELECT a2 FROM t"},
		{"SELECT a FROM t WHERE b = 1 " + shapeTag, "SELECT a FROM t WHERE b = 1 /* x */"},
		{"SELECT a FROM t WHERE b = 1 " + shapeTag, "SELECT a FROM t WHERE b = 1  "},
		{shapeTag + " SELECT a FROM t WHERE b = 1", "SELECT a FROM t WHERE b = 1 " + shapeTag},
		{"SELECT a FROM t WHERE b = 1;", "SELECT a FROM t WHERE b = 1"},
		{"SELECT a FROM t WHERE b = 'x' /* '1' */", "SELECT a FROM t WHERE b = 'x' /* '2' */"},
	}
	for _, tc := range cases {
		a, okA := ReadShape(tc.a)
		b, okB := ReadShape(tc.b)
		if okA && okB && a.Key == b.Key {
			t.Errorf("%q and %q share key %q", tc.a, tc.b, a.Key)
		}
	}
}

// TestShapeKeyShared: executions of one statement with other constants
// and other tag comments share a key and hold (see Holds).
func TestShapeKeyShared(t *testing.T) {
	cases := []struct{ a, b string }{
		{"SELECT a FROM t WHERE b = 1 " + shapeTag, "SELECT a FROM t WHERE b = 987654 /*pgequiv_ref='x',traceparent='y'*/"},
		{"SELECT a FROM t WHERE b = 'x' AND c > -5", "SELECT a FROM t WHERE b = 'it''s' AND c > -50"},
		{"SELECT a FROM t WHERE b = 2147483648", "SELECT a FROM t WHERE b = 99999999999999999999"},
		{"SELECT a FROM t WHERE b IN (1.5, 2.25) LIMIT 3;", "SELECT a FROM t WHERE b IN (0.0, 10.75) LIMIT 30;"},
	}
	for _, tc := range cases {
		a, okA := ReadShape(tc.a)
		b, okB := ReadShape(tc.b)
		if !okA || !okB || a.Key != b.Key {
			t.Errorf("%q and %q: keys %q (%v), %q (%v)", tc.a, tc.b, a.Key, okA, b.Key, okB)
			continue
		}
		checkShapeHolds(t, tc.a, tc.b)
	}
}

// TestShapeHolds: shapes whose literals the grammar may read by value,
// texts that are not one query, and texts the slow path reads otherwise
// are not kept.
func TestShapeHolds(t *testing.T) {
	cases := []struct {
		sql   string
		shape bool // ReadShape gives a shape
		holds bool
	}{
		{"SELECT a FROM t WHERE b = 1", true, true},
		{"SELECT a FROM t", true, true},
		{"SELECT a FROM t WHERE b = $1", true, true},
		{"SELECT a, count(*) FROM t GROUP BY 1", true, false}, // positional
		{"SELECT a FROM t ORDER BY 1", true, false},
		{"SELECT '1'::varchar(10)", true, false}, // a typmod
		{"SELECT 1::float(10)", true, false},
		{"SELECT U&'a!0041' UESCAPE '!'", true, false},
		{"SELECT a FROM t GROUP BY a + 1", true, true},
		{"SELECT a + 1 FROM t GROUP BY a + 1", true, false}, // one parameter for both
		{"INSERT INTO t VALUES (1)", true, false},
		{"EXPLAIN (ANALYZE 0) DELETE FROM t WHERE a = 1", true, false},
		{"SELECT nextval('s')", true, false},
		{"SELECT a FROM t WHERE b = 1; SELECT 2", false, false},
		{"SELECT a FROM t WHERE b = 'x", false, false},
		{"SELECT a FROM t WHERE b = 'x\x00'", false, false},
		{"SELECT a FROM t WHERE b = '\xef0'", false, false}, // invalid UTF-8
		{"SELECT FROM WHERE 1", true, false},
	}
	for _, tc := range cases {
		sh, ok := ReadShape(tc.sql)
		if ok != tc.shape {
			t.Errorf("ReadShape(%q): ok %v", tc.sql, ok)
			continue
		}
		if !ok {
			continue
		}
		stmts, err := Split(tc.sql, sqltext.StandardStrings)
		_, holds := sh.Holds(stmts)
		if err != nil {
			holds = false
		}
		if holds != tc.holds {
			t.Errorf("Holds(%q) = %v", tc.sql, holds)
		}
	}
}

// checkShapeHolds fails t unless what the slow path makes of b is what
// it made of a, where a's shape holds: a and b share a key.
func checkShapeHolds(t testing.TB, a, b string) {
	t.Helper()
	sa, _ := ReadShape(a)
	sb, _ := ReadShape(b)
	stA, errA := Split(a, sqltext.StandardStrings)
	if errA != nil {
		return
	}
	param, holds := sa.Holds(stA)
	if !holds {
		return
	}
	stB, errB := Split(b, sqltext.StandardStrings)
	if errB != nil || len(stB) != 1 {
		t.Fatalf("%q holds, but %q of its key splits into %d statements: %v", a, b, len(stB), errB)
	}
	x, y := stA[0], stB[0]
	if y.ParseErr != nil || x.Class != y.Class || x.Why != y.Why || y.Judged != sb.Stmt.Judged ||
		(y.Comment == nil) != (sb.Stmt.Comment == nil) || (y.CommentErr == nil) != (sb.Stmt.CommentErr == nil) {
		t.Fatalf("%q holds, but %q of its key reads otherwise: %+v against %+v (shape %+v)", a, b, y, x, sb.Stmt)
	}
	paramB, holdsB := sb.Holds(stB)
	if !holdsB || paramB != param {
		t.Fatalf("%q holds with shape %q, but %q of its key gives %q, %v", a, param, b, paramB, holdsB)
	}
	fa, errA := pg.Fingerprint(x.Judged)
	fb, errB := pg.Fingerprint(y.Judged)
	if errA != nil || errB != nil || fa != fb {
		t.Fatalf("%q holds, but %q of its key has fingerprint %s, not %s (%v, %v)", a, b, fb, fa, errA, errB)
	}
}

// respell replaces each literal sql's shape abstracts with another of
// its kind, drawn from alt, and the tag comment's pairs with others.
func respell(sql string, sh *Shape, alt string) string {
	h := fnv.New64a()
	var b strings.Builder
	last := 0
	for i, l := range sh.lits {
		h.Write([]byte(alt))
		h.Write([]byte{byte(i)})
		n := h.Sum64()
		b.WriteString(sql[last:l[0]])
		lit := sql[l[0]:l[1]]
		switch {
		case lit[0] == '\'':
			// A text of the key is valid UTF-8 without NULs (ReadShape).
			r := []rune(strings.ToValidUTF8(strings.ReplaceAll(alt, "\x00", ""), ""))
			s := strings.ReplaceAll(string(r[:int(n%uint64(len(r)+1))]), "'", "''")
			b.WriteString("'" + s + "'")
		case strings.Contains(lit, "."):
			b.WriteString(strconv.FormatUint(n%1000, 10) + "." + strconv.FormatUint(n%97, 10))
		case numberMark(lit, sqltext.Token{Kind: sqltext.TokNumber, End: len(lit)}) == markBig:
			b.WriteString("2147483648" + strconv.FormatUint(n%1000, 10))
		default:
			b.WriteString(strconv.FormatUint(n%2147483648, 10))
		}
		last = l[1]
	}
	b.WriteString(sql[last:])
	return b.String()
}

// FuzzShapeKey: two texts with the same shape key are the same to the
// slow path (tag.Split, Parameterize, pg_query's fingerprint) wherever
// the key's shape holds: the other text is sql with each abstracted
// literal replaced by another of its kind.
func FuzzShapeKey(f *testing.F) {
	for _, s := range []string{
		"SELECT a FROM t WHERE b = 1 " + shapeTag,
		"SELECT a FROM t WHERE b = 'x' AND c > -5 AND d < 1.5 AND e = 2147483648",
		"SELECT a FROM t WHERE b = '1'::int AND c = date '2020-01-01'",
		"SELECT a, count(*) FROM t GROUP BY 1 ORDER BY 2 LIMIT 10",
		"SELECT '1'::varchar(10), 1::float(10), interval '1' day",
		"SELECT a FROM t WHERE b = E'x' || 'y'\n'z' || $$w$$ || U&'v' UESCAPE '!'",
		"SELECT a FROM t WHERE b = 1e-5 AND c = .5 AND d = 0x1F AND e = 1_000",
		"SELECT a + 1 FROM t GROUP BY a + 2",
		"SELECT a FROM t WHERE b IN (1, 2, 3) OFFSET 5;",
		"SELECT x[1], (1, 'a'), ARRAY[1, 2] FROM t /* c */",
		"EXPLAIN (ANALYZE 0) DELETE FROM t WHERE a = 1",
	} {
		f.Add(s, "alt")
	}
	f.Fuzz(func(t *testing.T, sql, alt string) {
		sh, ok := ReadShape(sql)
		if !ok {
			return
		}
		other := respell(sql, &sh, alt)
		sh2, ok := ReadShape(other)
		if !ok || sh2.Key != sh.Key {
			t.Fatalf("respelled %q as %q: key %q (%v), want %q", sql, other, sh2.Key, ok, sh.Key)
		}
		checkShapeHolds(t, sql, other)
	})
}
