package dbfree

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// nulQuery is judged as its prefix by a parser reading C strings.
const nulQuery = "SELECT dog_id FROM dogs\x00 WHERE junk"

// TestNULRefused: a NUL in a parameter or a reference tag is refused with
// 22021 naming where it is, never judged as the text before it, and the
// connection keeps working.
func TestNULRefused(t *testing.T) {
	s := startServer(t, Options{})
	ctx := testCtx(t)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeExec, pgx.QueryExecModeCacheStatement, pgx.QueryExecModeDescribeExec} {
		t.Run(mode.String(), func(t *testing.T) {
			conn := s.connect(t, ctx, mode)
			for _, tc := range []struct {
				name string
				sql  string
				args []any
				want string
			}{
				{"candidate parameter", "SELECT * FROM pgequiv.check($1, $2)", []any{"SELECT dog_id FROM dogs", nulQuery}, "parameter $2 contains a NUL byte at offset 23"},
				{"reference parameter", "SELECT label FROM pgequiv.check($1, $2)", []any{nulQuery, "SELECT dog_id FROM dogs"}, "parameter $1 contains a NUL byte at offset 23"},
				{"tag", "SELECT dog_id FROM dogs /*pgequiv_ref='SELECT%20dog_id%20FROM%20dogs%00%20WHERE%20junk'*/", nil, "the reference contains a NUL byte at offset 23"},
			} {
				_, err := conn.Exec(ctx, tc.sql, tc.args...)
				if pe := pgErr(err); pe == nil || pe.Code != "22021" || !strings.Contains(pe.Message, tc.want) {
					t.Fatalf("%s: %v, want 22021 %q", tc.name, err, tc.want)
				}
				if _, err := scanVerdict(conn.QueryRow(ctx, "SELECT * FROM pgequiv.check($1, $2)", countStar, countOwner)); err != nil {
					t.Fatalf("after %s: %v", tc.name, err)
				}
			}
		})
	}

	db, err := sql.Open("postgres", s.connString(""))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var label string
	err = db.QueryRowContext(ctx, "SELECT label FROM pgequiv.check($1, $2)", "SELECT dog_id FROM dogs", nulQuery).Scan(&label)
	if err == nil || !strings.Contains(err.Error(), "parameter $2 contains a NUL byte at offset 23") {
		t.Fatalf("lib/pq: %q, %v", label, err)
	}
}

// TestNULInMessageText: the protocol ends a text at its first NUL, so a
// Query or Parse with bytes after that NUL and the message's last field
// is malformed: FATAL 08P01, as PostgreSQL answers. Nothing is judged.
func TestNULInMessageText(t *testing.T) {
	s := startServer(t, Options{})
	for _, tc := range []struct {
		name  string
		frame []byte
	}{
		{"query", frame('Q', nulQuery+"\x00")},
		// The junk after the NUL reads as a parameter count of 0 and then
		// trailing bytes, which pgproto3 alone would ignore.
		{"parse", frame('P', "\x00SELECT dog_id FROM dogs\x00\x00\x00 WHERE junk")},
		{"bind", frame('B', "\x00\x00\x00\x00\x00\x00\x00\x00junk")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := s.raw(t)
			if _, err := rc.nc.Write(tc.frame); err != nil {
				t.Fatal(err)
			}
			rc.fatal(t, codeProtocolViolation, "malformed")
		})
	}
}

func frame(typ byte, body string) []byte {
	n := len(body) + 4
	return append([]byte{typ, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, body...)
}
