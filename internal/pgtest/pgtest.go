// Package pgtest starts throwaway PostgreSQL clusters for tests.
//
// A Cluster is created with initdb in a fresh temporary directory, listens on
// a free loopback port, and is stopped and removed by Stop (or by t.Cleanup
// when created with New). When the test runs as root, initdb and postgres run
// as the "postgres" OS user, because PostgreSQL refuses to run as root.
//
// Every cluster has these login roles (see the constants):
//
//   - postgres: superuser, trust authentication
//   - scram_user: password stored as SCRAM-SHA-256, pg_hba method scram-sha-256
//   - md5_user: password stored as MD5, pg_hba method md5
//   - cleartext_user: pg_hba method password (cleartext on the wire)
//
// With Options.TLS the server also accepts TLS with a self-signed
// certificate for 127.0.0.1 and localhost; Cluster.CACertPEM holds it.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Role names and passwords every cluster has.
const (
	SuperUser         = "postgres"
	ScramUser         = "scram_user"
	ScramPassword     = "scram-secret"
	MD5User           = "md5_user"
	MD5Password       = "md5-secret"
	CleartextUser     = "cleartext_user"
	CleartextPassword = "clear-secret"
	Database          = "postgres"
)

// Options configures a cluster. The zero value is a plain cluster.
type Options struct {
	// TLS enables ssl=on with a self-signed certificate generated at start.
	TLS bool
	// MaxConnections sets max_connections; 0 means 300.
	MaxConnections int
	// StartTimeout bounds initdb + start + readiness; 0 means 90s.
	StartTimeout time.Duration
}

// Cluster is a running throwaway PostgreSQL server.
type Cluster struct {
	// Host is always 127.0.0.1.
	Host string
	// Port is the TCP port the server listens on.
	Port int
	// Dir is the temporary directory holding data, socket and logs.
	Dir string
	// BinDir is the directory of the PostgreSQL binaries used.
	BinDir string
	// CACertPEM is the PEM of the server's self-signed certificate
	// (nil without Options.TLS).
	CACertPEM []byte
	// KeyPEM is the PEM of the certificate's private key, for tests that
	// need to present the server's own certificate.
	KeyPEM []byte

	proc proc
}

// ErrNotFound is returned when no PostgreSQL server binaries can be found.
var ErrNotFound = errors.New("pgtest: PostgreSQL binaries (initdb, postgres) not found; run scripts/install-test-deps.sh")

// FindBinDir returns a directory holding initdb and postgres: the PATH is
// tried first, then the newest /usr/lib/postgresql/*/bin.
func FindBinDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		dir := filepath.Dir(resolve(p))
		if _, err := os.Stat(filepath.Join(dir, "postgres")); err == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if isExec(filepath.Join(d, "initdb")) && isExec(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	return "", ErrNotFound
}

// ClientBin returns the path of a client tool such as psql or pgbench: the
// cluster's BinDir first, then PATH.
func (c *Cluster) ClientBin(name string) (string, error) {
	if p := filepath.Join(c.BinDir, name); isExec(p) {
		return p, nil
	}
	return exec.LookPath(name)
}

func resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// New starts a cluster and registers its Stop with t.Cleanup. It fails the
// test when PostgreSQL cannot be started.
func New(t testing.TB, opts Options) *Cluster {
	t.Helper()
	c, err := Start(opts)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("pgtest: stop: %v", err)
		}
	})
	return c
}

// runAs holds the credential of the OS user the server runs as; nil when
// the current user is not root.
type runAs struct {
	uid, gid uint32
	home     string
}

func lookupRunAs() (*runAs, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root needs the postgres OS user: %w", err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &runAs{uid: uint32(uid), gid: uint32(gid), home: u.HomeDir}, nil
}

func (r *runAs) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	var cmd *exec.Cmd
	if ctx != nil {
		cmd = exec.CommandContext(ctx, name, args...)
	} else {
		cmd = exec.Command(name, args...)
	}
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if r != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: r.uid, Gid: r.gid}
		cmd.Env = append(cmd.Env, "HOME="+r.home, "USER=postgres")
	}
	return cmd
}

// tempDir creates a private temporary directory owned by the run-as user.
// Under root it is made in /tmp, because the postgres OS user may not be
// able to reach a TMPDIR below /root.
func (r *runAs) tempDir(pattern string) (string, error) {
	base := ""
	if r != nil {
		base = "/tmp"
	}
	dir, err := os.MkdirTemp(base, pattern)
	if err != nil {
		return "", fmt.Errorf("pgtest: temp dir: %w", err)
	}
	if err := r.chown(dir); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("pgtest: chown %s: %w", dir, err)
	}
	return dir, nil
}

func (r *runAs) chown(root string) error {
	if r == nil {
		return nil
	}
	return filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(r.uid), int(r.gid))
	})
}

// Start creates and starts a cluster. Call Stop to shut it down and remove
// its directory.
func Start(opts Options) (c *Cluster, err error) {
	if opts.MaxConnections == 0 {
		opts.MaxConnections = 300
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 90 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), opts.StartTimeout)
	defer cancel()

	binDir, err := FindBinDir()
	if err != nil {
		return nil, err
	}
	as, err := lookupRunAs()
	if err != nil {
		return nil, err
	}
	dir, err := as.tempDir("pgtest-")
	if err != nil {
		return nil, err
	}
	c = &Cluster{Host: "127.0.0.1", Dir: dir, BinDir: binDir}
	defer func() {
		if err != nil {
			_ = c.Stop()
		}
	}()

	dataDir := filepath.Join(dir, "data")
	initdb := as.command(ctx, filepath.Join(binDir, "initdb"),
		"-D", dataDir, "-U", SuperUser, "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		return c, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}

	// Another process may take the free port before postgres binds it;
	// then start again on a new port.
	for attempt := 1; ; attempt++ {
		err := c.startServer(ctx, as, opts)
		if err == nil {
			break
		}
		if attempt == 3 || !strings.Contains(err.Error(), "could not bind") {
			return c, err
		}
	}
	if err := c.createRoles(ctx); err != nil {
		return c, err
	}
	return c, nil
}

// startServer picks a port, writes the configuration and starts postgres,
// waiting until it accepts connections.
func (c *Cluster) startServer(ctx context.Context, as *runAs, opts Options) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	c.Port = port
	if err := c.writeConfig(opts); err != nil {
		return err
	}
	if err := as.chown(c.Dir); err != nil {
		return fmt.Errorf("pgtest: chown %s: %w", c.Dir, err)
	}
	cmd := as.command(nil, filepath.Join(c.BinDir, "postgres"), "-D", filepath.Join(c.Dir, "data"))
	if err := c.proc.start("postgres", cmd, filepath.Join(c.Dir, "postgres.log")); err != nil {
		return err
	}
	if err := c.waitReady(ctx); err != nil {
		return fmt.Errorf("%w\n%s", err, c.Log())
	}
	return nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func (c *Cluster) writeConfig(opts Options) error {
	dataDir := filepath.Join(c.Dir, "data")
	conf := fmt.Sprintf(`
listen_addresses = '127.0.0.1'
port = %d
unix_socket_directories = '%s'
max_connections = %d
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 32MB
log_min_messages = warning
`, c.Port, c.Dir, opts.MaxConnections)
	if opts.TLS {
		certPEM, keyPEM, err := SelfSignedCert()
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dataDir, "server.crt"), certPEM, 0o600); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dataDir, "server.key"), keyPEM, 0o600); err != nil {
			return err
		}
		c.CACertPEM, c.KeyPEM = certPEM, keyPEM
		conf += "ssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n"
	}
	f, err := os.OpenFile(filepath.Join(dataDir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(conf); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	hba := strings.Join([]string{
		"local all all trust",
		"host all " + ScramUser + " 127.0.0.1/32 scram-sha-256",
		"host all " + MD5User + " 127.0.0.1/32 md5",
		"host all " + CleartextUser + " 127.0.0.1/32 password",
		"host all all 127.0.0.1/32 trust",
		"",
	}, "\n")
	return os.WriteFile(filepath.Join(dataDir, "pg_hba.conf"), []byte(hba), 0o600)
}

// waitReady polls with real connections until the server accepts one, the
// server process exits, or ctx ends.
func (c *Cluster) waitReady(ctx context.Context) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var lastErr error
	for {
		conn, err := pgconn.Connect(ctx, c.ConnString(SuperUser, ""))
		if err == nil {
			return conn.Close(ctx)
		}
		lastErr = err
		select {
		case <-c.proc.exited:
			return fmt.Errorf("pgtest: postgres exited during start: %v", c.proc.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("pgtest: postgres not ready: %w (last error: %v)", ctx.Err(), lastErr)
		case <-tick.C:
		}
	}
}

func (c *Cluster) createRoles(ctx context.Context) error {
	conn, err := pgconn.Connect(ctx, c.ConnString(SuperUser, ""))
	if err != nil {
		return fmt.Errorf("pgtest: connect: %w", err)
	}
	defer conn.Close(ctx)
	sql := fmt.Sprintf(`
SET password_encryption = 'scram-sha-256';
CREATE ROLE %[1]s LOGIN SUPERUSER PASSWORD '%[2]s';
SET password_encryption = 'md5';
CREATE ROLE %[3]s LOGIN SUPERUSER PASSWORD '%[4]s';
CREATE ROLE %[5]s LOGIN SUPERUSER PASSWORD '%[6]s';
`, ScramUser, ScramPassword, MD5User, MD5Password, CleartextUser, CleartextPassword)
	if _, err := conn.Exec(ctx, sql).ReadAll(); err != nil {
		return fmt.Errorf("pgtest: create roles: %w", err)
	}
	return nil
}

// Addr returns "127.0.0.1:port".
func (c *Cluster) Addr() string {
	return net.JoinHostPort(c.Host, strconv.Itoa(c.Port))
}

// ConnString returns a keyword/value connection string for user (password
// may be empty) to the cluster with TLS disabled.
func (c *Cluster) ConnString(user, password string) string {
	return ConnString(c.Host, c.Port, user, password)
}

// ConnString returns a keyword/value connection string with sslmode=disable.
func ConnString(host string, port int, user, password string) string {
	s := fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable connect_timeout=10", host, port, user, Database)
	if password != "" {
		s += " password=" + password
	}
	return s
}

// Log returns the server log so far.
func (c *Cluster) Log() string {
	if c.Dir == "" {
		return ""
	}
	return readLogs(c.Dir, "postgres.log")
}

// Stop shuts the server down (fast shutdown, then SIGKILL after 30s) and
// removes the cluster directory. It is safe to call more than once.
func (c *Cluster) Stop() error {
	return c.proc.stop(30*time.Second, &c.Dir)
}
