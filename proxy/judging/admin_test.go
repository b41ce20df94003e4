package judging

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/proxy"
)

// TestAdminConsole: psql on the virtual database pgequiv, answered by the
// proxy itself.
func TestAdminConsole(t *testing.T) {
	var reloads int
	var mu sync.Mutex
	set := annotateSettings(t)
	var j *Judging
	e := startJudgeProxy(t, set, JudgingOptions{}, func(o *proxy.Options) {
		o.Admin = &proxy.AdminOptions{Users: []string{pgtest.SuperUser, pgtest.ScramUser}, Password: "console-pw", Console: &proxy.Console{
			Judging: nil, // set below, once the observer exists
			Config:  func() [][2]string { return [][2]string{{"mode", "annotate"}, {"admin.password", "(hidden)"}} },
			Reload: func(context.Context) error {
				mu.Lock()
				reloads++
				mu.Unlock()
				return nil
			},
		}}
	})
	j = e.j
	e.Options().Admin.Console.(*proxy.Console).Judging = j
	ctx := testCtx(t, 60*time.Second)
	conn, _ := e.connectNotices(t, ctx, kennelDB)
	if _, err := conn.Exec(ctx, withComment(countOwner, countStar)); err != nil {
		t.Fatal(err)
	}
	psql := clientBin(t, "psql")
	env := []string{"PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10", "PGPASSWORD=console-pw"}
	args := func(user string, cmds ...string) []string {
		a := []string{"-X", "-v", "ON_ERROR_STOP=1", "-h", e.Host, "-p", strconv.Itoa(e.Port), "-U", user, "-d", "pgequiv"}
		for _, c := range cmds {
			a = append(a, "-c", c)
		}
		return a
	}
	out := runTool(t, ctx, env, psql, args(pgtest.SuperUser, "SHOW VERDICTS", "show stats", "SHOW CLIENTS", "SHOW CONFIG", "RELOAD")...)
	for _, want := range []string{
		"equivalent", "comment", "annotated", // SHOW VERDICTS
		"tagged", "cache_misses", // SHOW STATS
		kennelDB, "relay", // SHOW CLIENTS: the pgx connection
		"(hidden)", // SHOW CONFIG
		"RELOAD",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("admin output lacks %q:\n%s", want, out)
		}
	}
	// pgx in the simple protocol reads the first counter.
	admin, err := pgx.Connect(ctx, dbConnString(e.Host, e.Port, pgtest.SuperUser, "console-pw", "pgequiv"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var name, value string
	if err := admin.QueryRow(ctx, "SHOW STATS", pgx.QueryExecModeSimpleProtocol).Scan(&name, &value); err != nil || name != "tagged" || value != "1" {
		t.Fatalf("first stat %s=%s, %v", name, value, err)
	}
	mu.Lock()
	if reloads != 1 {
		t.Errorf("%d reloads", reloads)
	}
	mu.Unlock()
	// Wrong password, a user not allowed, and an unknown command.
	for _, tc := range []struct {
		env  []string
		user string
		cmd  string
		want string
	}{
		{[]string{"PGPASSWORD=wrong"}, pgtest.SuperUser, "SHOW STATS", "password authentication failed"},
		{nil, pgtest.MD5User, "SHOW STATS", "may not use the admin console"},
		{nil, pgtest.SuperUser, "DROP TABLE dogs", "unknown command"},
	} {
		cmd := exec.CommandContext(ctx, psql, args(tc.user, tc.cmd)...)
		cmd.Env = append(cmd.Environ(), append(append([]string(nil), env...), tc.env...)...)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s as %s: %v\n%s", tc.cmd, tc.user, err, out)
		}
	}
}
