package dbfree

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/internal/pgtypes"
)

// TestShowSetting: SHOW pgequiv.reference is answered with the session's
// setting (one text column named after it, tag SHOW), never judged as a
// query, in every pgx execution mode; unset, it is empty.
func TestShowSetting(t *testing.T) {
	s := startServer(t, Options{})
	ctx := testCtx(t)
	for _, mode := range execModes {
		t.Run(mode.String(), func(t *testing.T) {
			conn := s.connect(t, ctx, mode)
			show := func(name string) string {
				t.Helper()
				rows, err := conn.Query(ctx, "SHOW "+name)
				if err != nil {
					t.Fatalf("SHOW %s: %v", name, err)
				}
				var got []string
				for rows.Next() {
					var v string
					if err := rows.Scan(&v); err != nil {
						t.Fatalf("SHOW %s: %v", name, err)
					}
					got = append(got, v)
				}
				fds := rows.FieldDescriptions()
				if err := rows.Err(); err != nil || len(got) != 1 || len(fds) != 1 || fds[0].Name != name ||
					fds[0].DataTypeOID != pgtypes.Text || rows.CommandTag().String() != "SHOW" {
					t.Fatalf("SHOW %s: %q, %v, %+v, %q", name, got, err, fds, rows.CommandTag())
				}
				return got[0]
			}
			if got := show("pgequiv.reference"); got != "" {
				t.Fatalf("unset: %q", got)
			}
			if _, err := conn.Exec(ctx, "SET pgequiv.reference = 'SELECT name FROM dogs'"); err != nil {
				t.Fatal(err)
			}
			if got := show("pgequiv.reference"); got != "SELECT name FROM dogs" {
				t.Fatalf("after SET: %q", got)
			}
			if got := show("pgequiv.reference_id"); got != "" {
				t.Fatalf("reference_id: %q", got)
			}
			if _, err := conn.Exec(ctx, "RESET pgequiv.reference"); err != nil {
				t.Fatal(err)
			}
			if got := show("pgequiv.reference"); got != "" {
				t.Fatalf("after RESET: %q", got)
			}
		})
	}
	// Binary results in the extended protocol: text is the same bytes.
	conn := s.connect(t, ctx, pgx.QueryExecModeCacheStatement)
	res := conn.PgConn().ExecParams(ctx, "SHOW pgequiv.reference_id", nil, nil, nil, []int16{1}).Read()
	if res.Err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != "" || res.FieldDescriptions[0].Format != 1 {
		t.Fatalf("binary: %+v", res)
	}
}
