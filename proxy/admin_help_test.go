package proxy

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/internal/buildinfo"
	"github.com/pgequiv/pgequiv/internal/pgtest"
)

// TestAdminConsoleHelpAndVersion (issue 37, item 6): the console answers
// SHOW HELP with every command it knows and SHOW VERSION with what
// `pgequiv version` prints, as PgBouncer's console does, over the simple
// and the extended protocol; a filter on them, or a misspelt command, is
// an error that points at SHOW HELP.
func TestAdminConsoleHelpAndVersion(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	opts := upstreamOpts()
	opts.Admin = &AdminOptions{Users: []string{pgtest.SuperUser}, Console: &Console{}}
	p := startProxy(t, opts)
	conn, err := adminConnect(ctx, p, "")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	commands := []string{"SHOW HELP", "SHOW VERDICTS", "SHOW DIVERGENCES", "SHOW STATS", "SHOW CLIENTS",
		"SHOW CONFIG", "SHOW VERSION", "RELOAD"}
	for _, tc := range []struct {
		sql      string
		extended bool
		columns  []string
		check    func(rows [][]string) string // "" when the rows are right
		errCode  string                       // the error instead of rows
		errHas   string
	}{
		{sql: "SHOW HELP", columns: []string{"command", "description"}, check: func(rows [][]string) string {
			if len(rows) != len(commands) {
				return "rows " + strconv.Itoa(len(rows)) + ", want " + strconv.Itoa(len(commands))
			}
			for i, want := range commands {
				if !strings.HasPrefix(rows[i][0], want) || rows[i][1] == "" {
					return "row " + strconv.Itoa(i) + " " + strings.Join(rows[i], " | ") + ", want " + want + " with a description"
				}
			}
			return ""
		}},
		{sql: "show  help", extended: true, columns: []string{"command", "description"}, check: func(rows [][]string) string {
			if len(rows) != len(commands) {
				return "rows " + strconv.Itoa(len(rows))
			}
			return ""
		}},
		{sql: "SHOW VERSION", columns: []string{"version"}, check: func(rows [][]string) string {
			if want := buildinfo.Read().String(); len(rows) != 1 || rows[0][0] != want || !strings.HasPrefix(want, "pgequiv ") {
				return "want one row " + want
			}
			return ""
		}},
		{sql: "show version", extended: true, columns: []string{"version"}, check: func(rows [][]string) string {
			if len(rows) != 1 || !strings.HasPrefix(rows[0][0], "pgequiv ") {
				return "want one row pgequiv ..."
			}
			return ""
		}},
		{sql: "SHOW VERSION WHERE version = 'x'", errCode: pgCodeSyntaxError, errHas: "SHOW HELP"},
		{sql: "SHOW HELPS", errCode: pgCodeSyntaxError, errHas: "SHOW HELP lists the commands"},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			var res *pgconn.Result
			if tc.extended {
				res = conn.ExecParams(ctx, tc.sql, nil, nil, nil, nil).Read()
			} else {
				var all []*pgconn.Result
				all, err = conn.Exec(ctx, tc.sql).ReadAll()
				if err == nil && len(all) != 1 {
					t.Fatalf("%d results, want 1", len(all))
				}
				if err == nil {
					res = all[0]
				}
			}
			if res != nil {
				err = res.Err
			}
			var cols []string
			var rows [][]string
			if err == nil {
				for _, f := range res.FieldDescriptions {
					cols = append(cols, f.Name)
				}
				for _, r := range res.Rows {
					row := make([]string, len(r))
					for i, v := range r {
						row[i] = string(v)
					}
					rows = append(rows, row)
				}
			}
			if tc.errCode != "" {
				if pgCode(err) != tc.errCode || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("error %v, want %s mentioning %q", err, tc.errCode, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(cols, ",") != strings.Join(tc.columns, ",") {
				t.Errorf("columns %v, want %v", cols, tc.columns)
			}
			if msg := tc.check(rows); msg != "" {
				t.Errorf("%s: %s; rows %q", tc.sql, msg, rows)
			}
		})
	}

	// psql, as an operator types it.
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatalf("psql: %v (scripts/install-test-deps.sh installs it)", err)
	}
	out, err := exec.CommandContext(ctx, psql, "-X", "-A", "-t", "-h", p.Host, "-p", strconv.Itoa(p.Port), "-U", pgtest.SuperUser,
		"-d", "pgequiv", "-c", "SHOW HELP", "-c", "SHOW VERSION").CombinedOutput()
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	for _, want := range []string{"SHOW VERSION|", "RELOAD|", buildinfo.Read().String()} {
		if !strings.Contains(string(out), want) {
			t.Errorf("psql output lacks %q:\n%s", want, out)
		}
	}
}
