package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// PgBouncerOptions configures StartPgBouncer.
type PgBouncerOptions struct {
	// Upstream is the host:port pgbouncer connects to (a cluster or a proxy).
	UpstreamHost string
	UpstreamPort int
	// PoolMode is session, transaction or statement; default transaction.
	PoolMode string
	// PoolSize is default_pool_size; default 5.
	PoolSize int
	// Users maps user names to the passwords pgbouncer uses to log in to
	// the upstream. Clients log in to pgbouncer with trust.
	Users map[string]string
}

// PgBouncer is a running pgbouncer serving the database Database.
type PgBouncer struct {
	Host string
	Port int
	Dir  string

	proc proc
}

// ErrNoPgBouncer is returned when pgbouncer is not installed.
var ErrNoPgBouncer = errors.New("pgtest: pgbouncer not found; run scripts/install-test-deps.sh")

func findPgBouncer() (string, error) {
	if p, err := exec.LookPath("pgbouncer"); err == nil {
		return p, nil
	}
	for _, p := range []string{"/usr/sbin/pgbouncer", "/usr/bin/pgbouncer", "/usr/local/bin/pgbouncer"} {
		if isExec(p) {
			return p, nil
		}
	}
	return "", ErrNoPgBouncer
}

// NewPgBouncer starts pgbouncer and stops it in t.Cleanup.
func NewPgBouncer(t testing.TB, opts PgBouncerOptions) *PgBouncer {
	t.Helper()
	b, err := StartPgBouncer(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Stop(); err != nil {
			t.Errorf("pgtest: stop pgbouncer: %v", err)
		}
	})
	return b
}

// StartPgBouncer starts pgbouncer (as the postgres OS user under root,
// since pgbouncer refuses to run as root) and waits until it accepts
// connections.
func StartPgBouncer(opts PgBouncerOptions) (b *PgBouncer, err error) {
	bin, err := findPgBouncer()
	if err != nil {
		return nil, err
	}
	if opts.PoolMode == "" {
		opts.PoolMode = "transaction"
	}
	if opts.PoolSize == 0 {
		opts.PoolSize = 5
	}
	as, err := lookupRunAs()
	if err != nil {
		return nil, err
	}
	dir, err := as.tempDir("pgbouncer-")
	if err != nil {
		return nil, err
	}
	b = &PgBouncer{Host: "127.0.0.1", Dir: dir}
	defer func() {
		if err != nil {
			_ = b.Stop()
		}
	}()
	if b.Port, err = freePort(); err != nil {
		return b, err
	}
	users := make([]string, 0, len(opts.Users))
	for u := range opts.Users {
		users = append(users, u)
	}
	sort.Strings(users)
	var userlist strings.Builder
	for _, u := range users {
		fmt.Fprintf(&userlist, "%q %q\n", u, opts.Users[u])
	}
	ini := fmt.Sprintf(`[databases]
%s = host=%s port=%d dbname=%s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = %s
default_pool_size = %d
max_client_conn = 200
logfile = %s
pidfile = %s
server_tls_sslmode = disable
ignore_startup_parameters = extra_float_digits
`, Database, opts.UpstreamHost, opts.UpstreamPort, Database, b.Port,
		filepath.Join(dir, "userlist.txt"), opts.PoolMode, opts.PoolSize,
		filepath.Join(dir, "pgbouncer.log"), filepath.Join(dir, "pgbouncer.pid"))
	if err := os.WriteFile(filepath.Join(dir, "userlist.txt"), []byte(userlist.String()), 0o600); err != nil {
		return b, err
	}
	if err := os.WriteFile(filepath.Join(dir, "pgbouncer.ini"), []byte(ini), 0o600); err != nil {
		return b, err
	}
	if err := as.chown(dir); err != nil {
		return b, err
	}
	cmd := as.command(nil, bin, filepath.Join(dir, "pgbouncer.ini"))
	if err := b.proc.start("pgbouncer", cmd, filepath.Join(dir, "stdout.log")); err != nil {
		return b, err
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		// Connecting to the admin-free "pgbouncer" check: any login that
		// reaches pgbouncer's own authentication means it is up.
		c, err := pgconn.Connect(ctx, ConnString(b.Host, b.Port, users[0], ""))
		if err == nil {
			c.Close(ctx)
			return b, nil
		}
		select {
		case <-b.proc.exited:
			return b, fmt.Errorf("pgtest: pgbouncer exited: %v\n%s", b.proc.waitErr, readLogs(dir, "stdout.log", "pgbouncer.log"))
		case <-ctx.Done():
			return b, fmt.Errorf("pgtest: pgbouncer not ready: %v", err)
		case <-tick.C:
		}
	}
}

// Stop terminates pgbouncer and removes its directory.
func (b *PgBouncer) Stop() error {
	return b.proc.stop(10*time.Second, &b.Dir)
}
