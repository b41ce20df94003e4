// Command idleconns opens N idle PostgreSQL connections to an address and
// reports the resident memory of a process (the proxy) before and after,
// as JSON. scripts/bench-proxy.sh uses it for "RSS with 500 idle
// connections":
//
//	go run ./scripts/idleconns -addr 127.0.0.1:15432 -n 500 -pid 1234
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:15432", "host:port to connect to")
	n := flag.Int("n", 500, "number of idle connections")
	pid := flag.Int("pid", 0, "process whose RSS to report (required)")
	user := flag.String("user", "postgres", "user name")
	db := flag.String("db", "postgres", "database")
	settle := flag.Duration("settle", time.Second, "wait this long with all connections open before reading RSS")
	warmup := flag.Int("warmup", 0, "open and close this many connections (one query each) before the first RSS reading, so that one-time costs (code pages faulted in, lazily built state) are not counted per connection")
	more := flag.Int("more", 0, "after the reading with n connections, open this many more and read again: the difference is the cost of a connection at the margin, without the one-time costs the first n share")
	flag.Parse()
	if err := run(*addr, *n, *more, *warmup, *pid, *user, *db, *settle); err != nil {
		fmt.Fprintln(os.Stderr, "idleconns:", err)
		os.Exit(1)
	}
}

// report is idleconns' output. RSS is VmRSS; anon is RssAnon, the part
// not backed by the executable's file pages.
type report struct {
	Conns         int     `json:"conns"`
	RSSBeforeKB   int     `json:"rss_before_kb"`
	RSSAfterKB    int     `json:"rss_after_kb"`
	PerConnKB     float64 `json:"per_conn_kb"` // (after - before) / conns, to 0.01 KB
	PerConnAnonKB float64 `json:"per_conn_anon_kb"`
	AnonBeforeKB  int     `json:"anon_before_kb"`
	AnonAfterKB   int     `json:"anon_after_kb"`
	// With -more: the readings with n+more connections open.
	More       int `json:"more_conns,omitempty"`
	RSSMoreKB  int `json:"rss_more_kb,omitempty"`
	AnonMoreKB int `json:"anon_more_kb,omitempty"`
}

func run(addr string, n, more, warmup, pid int, user, db string, settle time.Duration) error {
	if pid <= 0 {
		return errors.New("-pid is required")
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	connStr := fmt.Sprintf("host=%s port=%s user=%s dbname=%s sslmode=disable connect_timeout=30", host, port, user, db)
	for i := 0; i < warmup; i++ {
		c, err := pgconn.Connect(ctx, connStr)
		if err != nil {
			return fmt.Errorf("warm-up connection %d: %w", i+1, err)
		}
		_, err = c.Exec(ctx, "SELECT 1").ReadAll()
		c.Close(ctx)
		if err != nil {
			return fmt.Errorf("warm-up connection %d: %w", i+1, err)
		}
	}
	before, anonBefore, err := rss(pid)
	if err != nil {
		return err
	}
	conns, err := openIdle(ctx, connStr, n)
	defer closeAll(conns)
	if err != nil {
		return err
	}
	time.Sleep(settle) // let the process's memory settle; this is a measurement, not synchronization
	after, anonAfter, err := rss(pid)
	if err != nil {
		return err
	}
	r := report{Conns: n, RSSBeforeKB: before, RSSAfterKB: after, PerConnKB: perConn(after-before, n),
		AnonBeforeKB: anonBefore, AnonAfterKB: anonAfter, PerConnAnonKB: perConn(anonAfter-anonBefore, n)}
	if more > 0 {
		extra, err := openIdle(ctx, connStr, more)
		defer closeAll(extra)
		if err != nil {
			return err
		}
		time.Sleep(settle)
		if r.RSSMoreKB, r.AnonMoreKB, err = rss(pid); err != nil {
			return err
		}
		r.More = more
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}

// openIdle opens n connections, at most 32 starting at once, and takes
// each through one round trip, so that all are past startup. It returns
// those it opened, for closeAll, with the first error.
func openIdle(ctx context.Context, connStr string, n int) ([]*pgconn.PgConn, error) {
	conns := make([]*pgconn.PgConn, n)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32) // bounded concurrent startups
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			c, err := pgconn.Connect(ctx, connStr)
			if err != nil {
				errs <- err
				return
			}
			conns[i] = c
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return conns, fmt.Errorf("connecting: %w", err)
	}
	for _, c := range conns {
		if _, err := c.Exec(ctx, "SELECT 1").ReadAll(); err != nil {
			return conns, err
		}
	}
	return conns, nil
}

func closeAll(conns []*pgconn.PgConn) {
	for _, c := range conns {
		if c != nil {
			c.Close(context.Background())
		}
	}
}

// rss reads VmRSS and RssAnon (kB) of pid.
func rss(pid int) (vm, anon int, err error) {
	if vm, err = rssKB(pid, "VmRSS:"); err != nil {
		return 0, 0, err
	}
	anon, err = rssKB(pid, "RssAnon:")
	return vm, anon, err
}

// rssKB reads one kB field (VmRSS:, RssAnon:) from /proc/PID/status.
func rssKB(pid int, field string) (int, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), field); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// perConn is kb over n connections, rounded to 0.01 KB: an integer
// division wrote 3.8 KB as 3.
func perConn(kb, n int) float64 {
	if n <= 0 {
		return 0
	}
	return math.Round(float64(kb)/float64(n)*100) / 100
}
