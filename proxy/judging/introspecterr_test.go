package judging

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/proxy"
)

// TestIntrospectNamesPasswordSetting (issue 37, item 6): when the
// upstream refuses the introspection role's login, the proxy's log, the
// client's NOTICE and the verdict record name schema.introspect.password
// and PGEQUIV_INTROSPECT_PASSWORD, so the operator knows what to set.
// The role is the test cluster's SCRAM user; with its right password the
// schema is read and the query judged, and a failure that is no login
// refusal (nothing listens) does not point at the password.
func TestIntrospectNamesPasswordSetting(t *testing.T) {
	closed := closedAddr(t)
	for _, tc := range []struct {
		name, user, password string
		addr                 string // the introspection's upstream; pg's by default
		code                 string // the upstream's SQLSTATE, for a refused login
		want, wantNot        []string
	}{
		{name: "wrong password", user: pgtest.ScramUser, password: "not-" + pgtest.ScramPassword, code: "28P01",
			want: []string{"cannot judge: introspect kennel: the upstream ", "refused the login of the introspection role \"scram_user\" (FATAL: password authentication failed for user \"scram_user\"; invalid_password)",
				"check schema.introspect.user and schema.introspect.password (or PGEQUIV_INTROSPECT_PASSWORD)"}},
		{name: "no password", user: pgtest.ScramUser, code: "28P01",
			want: []string{"no password is configured: set schema.introspect.password (or PGEQUIV_INTROSPECT_PASSWORD)"}},
		{name: "no such role", user: "no_such_role", password: "x", code: "28000",
			want: []string{"role \"no_such_role\" (FATAL: role \"no_such_role\" does not exist; invalid_authorization_specification)", "schema.introspect.user and schema.introspect.password (or PGEQUIV_INTROSPECT_PASSWORD)"}},
		{name: "nothing listens", user: pgtest.ScramUser, password: pgtest.ScramPassword, addr: closed,
			want: []string{"cannot judge: introspect kennel: connect:"}, wantNot: []string{"introspect.password", "PGEQUIV_INTROSPECT_PASSWORD"}},
		{name: "right password", user: pgtest.ScramUser, password: pgtest.ScramPassword,
			want: []string{equivNotice}, wantNot: []string{"cannot judge", "introspect.password"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := tc.addr
			if addr == "" {
				addr = pg.Addr()
			}
			in := &Introspection{Upstream: proxy.Upstream{Address: addr, TLSMode: proxy.TLSDisable},
				User: tc.user, Password: tc.password, Timeout: 5 * time.Second}
			set := annotateSettings(t)
			set.Schemas = SchemaSettings{Introspect: in}
			e := startJudgeProxy(t, set, JudgingOptions{})
			ctx := testCtx(t, 60*time.Second)

			// The error itself: typed, wrapping the upstream's.
			_, _, err := Introspect(ctx, *in, kennelDB)
			var authErr *IntrospectAuthError
			var pgErr *pgconn.PgError
			switch {
			case tc.code == "" && errors.As(err, &authErr):
				t.Errorf("Introspect: %v, want no IntrospectAuthError", err)
			case tc.code != "" && (!errors.As(err, &authErr) || !errors.As(err, &pgErr) || pgErr.Code != tc.code):
				t.Errorf("Introspect: %v, want an IntrospectAuthError over SQLSTATE %s", err, tc.code)
			case tc.addr == "" && tc.code == "" && err != nil:
				t.Errorf("Introspect: %v", err)
			}

			conn, notices := e.connectNotices(t, ctx, kennelDB)
			var n int
			if err := conn.QueryRow(ctx, withComment(countOwner, countStar), pgx.QueryExecModeSimpleProtocol).Scan(&n); err != nil || n != 1 {
				t.Fatalf("annotate mode must run the query: %d, %v", n, err)
			}
			e.j.Wait()
			ns := notices()
			recs := e.j.RecentVerdicts()
			if len(ns) != 1 || len(recs) != 1 {
				t.Fatalf("notices %q, %d verdict records; want one each", ns, len(recs))
			}
			for where, text := range map[string]string{"notice": ns[0], "verdict record": recs[0].Summary} {
				for _, w := range tc.want {
					if !strings.Contains(text, w) && (w != equivNotice || where == "notice") {
						t.Errorf("%s %q lacks %q", where, text, w)
					}
				}
				for _, w := range tc.wantNot {
					if strings.Contains(text, w) {
						t.Errorf("%s %q has %q", where, text, w)
					}
				}
			}
			// The operator's log names the settings exactly when the
			// login was refused.
			line := logLine(e.logs.String(), "schema introspection failed")
			if (line != "") != (tc.code != "" || tc.addr != "") {
				t.Errorf("introspection failure logged as %q", line)
			}
			for _, key := range []string{introspectPasswordKey, introspectPasswordEnv} {
				if strings.Contains(line, key) != (tc.code != "") {
					t.Errorf("log line %q: naming %s is %t, want %t", line, key, !(tc.code != ""), tc.code != "")
				}
			}
		})
	}
}

// TestIntrospectSettingNames: the names the message gives are the
// configuration's: the YAML path decodes into the introspection password
// and the environment variable is the one config reads.
func TestIntrospectSettingNames(t *testing.T) {
	if introspectPasswordEnv != config.EnvIntrospectPassword {
		t.Errorf("message names %s, config reads %s", introspectPasswordEnv, config.EnvIntrospectPassword)
	}
	path := func(key string) []string { return strings.Split(key, ".") }
	u, p := path(introspectUserKey), path(introspectPasswordKey)
	if len(u) != 3 || len(p) != 3 || u[0] != p[0] || u[1] != p[1] {
		t.Fatalf("keys %s and %s are not siblings", introspectUserKey, introspectPasswordKey)
	}
	doc := u[0] + ":\n  " + u[1] + ":\n    " + u[2] + ": someone\n    " + p[2] + ": secret\n"
	c, err := config.Parse([]byte(doc))
	if err != nil {
		t.Fatalf("config rejects the keys the message names: %v\n%s", err, doc)
	}
	if in := c.Schema.Introspect; in.User != "someone" || in.Password != "secret" {
		t.Errorf("%s and %s decode to %+v", introspectUserKey, introspectPasswordKey, in)
	}
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// logLine is the first line of the text log that contains marker.
func logLine(log, marker string) string {
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, marker) {
			return l
		}
	}
	return ""
}
