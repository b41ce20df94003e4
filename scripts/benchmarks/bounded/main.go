// Command bounded measures issue 19's bounds on a running pgequiv relay
// (scripts/benchmarks/bounded.sh starts PostgreSQL and the proxy, then
// runs it):
//
//	bounded oversize -addr 127.0.0.1:15432 -pid 1234 -admin-user admin
//	bounded load -addr 127.0.0.1:15432 -annotate 100 -enforce 50
//	bounded verdicts -addr 127.0.0.1:15432 -admin-user admin
//
// oversize sends 20 MB tagged and untagged statements and reports the proxy's resident size before and after, the
// slowest answer, and the bytes SHOW VERDICTS returns; load runs tagged
// clients whose judgements queue for the judge workers and reports the
// time from each Query to its ReadyForQuery (max, p99); verdicts counts
// SHOW VERDICTS rows. Each prints one JSON object.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: bounded oversize|load|verdicts [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:15432", "proxy host:port")
	db := fs.String("db", "kennel", "database")
	user := fs.String("user", "postgres", "user")
	adminUser := fs.String("admin-user", "admin", "admin console user (trust)")
	pid := fs.Int("pid", 0, "proxy pid (oversize: resident size)")
	size := fs.Int("size", 20<<20, "oversize: statement size in bytes")
	n := fs.Int("n", 50, "oversize: rounds of a tagged and an untagged statement")
	annotate := fs.Int("annotate", 100, "load: annotate clients")
	enforce := fs.Int("enforce", 50, "load: enforce clients (catalog id strict)")
	dur := fs.Duration("duration", 20*time.Second, "load: how long each client sends")
	items := fs.Int("items", 20000, "load: IN-list items of each candidate (sets the judgement's cost)")
	_ = fs.Parse(os.Args[2:])
	c := cfg{addr: *addr, db: *db, user: *user, admin: *adminUser}
	var out any
	var err error
	switch os.Args[1] {
	case "oversize":
		out, err = oversize(c, *pid, *size, *n)
	case "load":
		out, err = load(c, *annotate, *enforce, *dur, *items)
	case "verdicts":
		out, err = verdicts(c)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bounded:", err)
		os.Exit(1)
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
}

type cfg struct{ addr, db, user, admin string }

func (c cfg) connect(ctx context.Context, db, user string, notices *[]string, mu *sync.Mutex) (*pgconn.PgConn, error) {
	host, port, _ := strings.Cut(c.addr, ":")
	conf, err := pgconn.ParseConfig(fmt.Sprintf("host=%s port=%s user=%s dbname=%s sslmode=disable", host, port, user, db))
	if err != nil {
		return nil, err
	}
	if notices != nil {
		conf.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
			mu.Lock()
			*notices = append(*notices, n.Message)
			mu.Unlock()
		}
	}
	return pgconn.ConnectConfig(ctx, conf)
}

// rss returns the process's VmRSS and VmHWM in bytes.
func rss(pid int) (cur, peak int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "VmRSS:" || f[0] == "VmHWM:") {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			if f[0] == "VmRSS:" {
				cur = kb << 10
			} else {
				peak = kb << 10
			}
		}
	}
	return cur, peak, nil
}

const refComment = "/*pgequiv_ref='SELECT%20count(*)%20FROM%20dogs%20WHERE%20age%20%3E%201%20AND%20owner_id%20%3E%200'*/"

// run sends sql and returns how long until ReadyForQuery and the error
// the server or proxy answered.
func run(ctx context.Context, conn *pgconn.PgConn, sql string) (time.Duration, error) {
	start := time.Now()
	_, err := conn.Exec(ctx, sql).ReadAll()
	return time.Since(start), err
}

type oversizeReport struct {
	Size                 int                `json:"statement_bytes"`
	RSSBeforeMB          float64            `json:"rss_before_mb"`
	RSSAfterMB           float64            `json:"rss_after_mb"`
	RSSGrowthMB          float64            `json:"rss_growth_mb"`
	PeakBeforeMB         float64            `json:"peak_rss_before_mb"`
	PeakAfterMB          float64            `json:"peak_rss_after_mb"`
	PeakGrowthMB         float64            `json:"peak_rss_growth_mb"`
	FirstMS              map[string]float64 `json:"first_answer_ms"`
	MaxMS                float64            `json:"max_answer_ms"`
	MaxByKindMS          map[string]float64 `json:"max_answer_by_kind_ms"`
	Outcomes             map[string]string  `json:"outcomes"`
	Statements           int                `json:"statements"`
	ShowVerdictsRows     int                `json:"show_verdicts_rows"`
	ShowVerdictsBytes    int                `json:"show_verdicts_bytes"`
	ShowDivergencesBytes int                `json:"show_divergences_bytes"`
}

// oversize sends n rounds of a tagged and an untagged statement of size
// bytes (the untagged one would match the catalog's old-dogs entry but
// for its padding) and records each kind's first outcome.
func oversize(c cfg, pid, size, n int) (*oversizeReport, error) {
	ctx := context.Background()
	var mu sync.Mutex
	var notices []string
	conn, err := c.connect(ctx, c.db, c.user, &notices, &mu)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	r := &oversizeReport{Size: size, FirstMS: map[string]float64{}, MaxByKindMS: map[string]float64{}, Outcomes: map[string]string{}}
	pad := "'" + strings.Repeat("x", size) + "'"
	base := "SELECT count(owner_id) FROM dogs WHERE age > 1 AND owner_id > 0 AND name <> "
	stmts := []struct{ kind, sql string }{{"tagged", base + pad + " " + refComment}, {"untagged", base + pad}}
	if _, err := run(ctx, conn, "SELECT 1"); err != nil { // warm the connection
		return nil, err
	}
	// pid 0: no resident size (a baseline straight to PostgreSQL).
	before, peak0, err := rss(pid)
	if err != nil && pid != 0 {
		return nil, err
	}
	var slowest time.Duration
	for i := range n {
		for _, st := range stmts {
			d, err := run(ctx, conn, st.sql)
			slowest = slices.Max([]time.Duration{slowest, d})
			mu.Lock()
			outcome := "ran"
			if len(notices) > 0 {
				outcome = "ran; notice: " + notices[len(notices)-1]
			}
			notices = notices[:0]
			mu.Unlock()
			var pgErr *pgconn.PgError
			switch {
			case errors.As(err, &pgErr):
				outcome = "refused: " + pgErr.Code + " " + pgErr.Message
			case err != nil:
				return nil, fmt.Errorf("%s: %w", st.kind, err)
			}
			r.MaxByKindMS[st.kind] = max(r.MaxByKindMS[st.kind], float64(d.Microseconds())/1000)
			if i == 0 {
				r.FirstMS[st.kind] = float64(d.Microseconds()) / 1000
				if len(outcome) > 200 {
					outcome = outcome[:200]
				}
				r.Outcomes[st.kind] = outcome
			}
			r.Statements++
		}
	}
	after, peak1, err := rss(pid)
	if err != nil && pid != 0 {
		return nil, err
	}
	mb := func(b int64) float64 { return float64(b) / (1 << 20) }
	r.RSSBeforeMB, r.RSSAfterMB, r.RSSGrowthMB = mb(before), mb(after), mb(after-before)
	r.PeakBeforeMB, r.PeakAfterMB, r.PeakGrowthMB = mb(peak0), mb(peak1), mb(peak1-peak0)
	r.MaxMS = float64(slowest.Microseconds()) / 1000
	if c.admin == "" {
		return r, nil
	}
	r.ShowVerdictsRows, r.ShowVerdictsBytes, err = adminBytes(ctx, c, "SHOW VERDICTS")
	if err != nil {
		return nil, err
	}
	_, r.ShowDivergencesBytes, err = adminBytes(ctx, c, "SHOW DIVERGENCES")
	return r, err
}

// adminBytes runs a console command and counts its rows and value bytes.
func adminBytes(ctx context.Context, c cfg, cmd string) (rows, bytes int, err error) {
	conn, err := c.connect(ctx, "pgequiv", c.admin, nil, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("admin console: %w", err)
	}
	defer conn.Close(ctx)
	res, err := conn.Exec(ctx, cmd).ReadAll()
	if err != nil {
		return 0, 0, err
	}
	for _, rs := range res {
		for _, row := range rs.Rows {
			rows++
			for _, v := range row {
				bytes += len(v)
			}
		}
	}
	return rows, bytes, nil
}

func verdicts(c cfg) (map[string]int, error) {
	rows, bytes, err := adminBytes(context.Background(), c, "SHOW VERDICTS")
	return map[string]int{"rows": rows, "bytes": bytes}, err
}

type loadReport struct {
	Clients  map[string]int     `json:"clients"`
	Answers  map[string]int     `json:"answers"`
	MaxMS    map[string]float64 `json:"max_ms"`
	P99MS    map[string]float64 `json:"p99_ms"`
	P50MS    map[string]float64 `json:"p50_ms"`
	Outcomes map[string]int     `json:"outcomes"`
	Errors   []string           `json:"errors,omitempty"`
}

// load runs annotate and enforce clients, each sending tagged IN-list
// queries (a new list each time, so no cache answers) for dur.
func load(c cfg, annotate, enforce int, dur time.Duration, items int) (*loadReport, error) {
	ctx := context.Background()
	type sample struct {
		kind    string
		d       time.Duration
		outcome string
	}
	var mu sync.Mutex
	var samples []sample
	var errs []string
	var wg sync.WaitGroup
	stop := time.Now().Add(dur)
	start := make(chan struct{})
	client := func(kind string, seed uint64) {
		defer wg.Done()
		var nmu sync.Mutex
		var notices []string
		conn, err := c.connect(ctx, c.db, c.user, &notices, &nmu)
		if err != nil {
			mu.Lock()
			errs = append(errs, err.Error())
			mu.Unlock()
			return
		}
		defer conn.Close(ctx)
		rng := rand.New(rand.NewPCG(seed, 19))
		<-start
		for time.Now().Before(stop) {
			var b strings.Builder
			b.WriteString("SELECT name FROM dogs WHERE age IN (")
			step := 2 + rng.IntN(5)
			for i := range items {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(i * step))
			}
			b.WriteString(")")
			if kind == "enforce" {
				b.WriteString(" /*pgequiv_ref_id='slow'*/")
			} else {
				b.WriteString(" /*pgequiv_ref='SELECT%20name%20FROM%20dogs%20WHERE%20age%20IN%20(1,%202,%203)'*/")
			}
			d, err := run(ctx, conn, b.String())
			outcome := "ran"
			var pgErr *pgconn.PgError
			switch {
			case errors.As(err, &pgErr):
				outcome = "refused " + pgErr.Code
			case err != nil:
				mu.Lock()
				errs = append(errs, err.Error())
				mu.Unlock()
				return
			}
			nmu.Lock()
			for _, n := range notices {
				switch {
				case strings.Contains(n, "no verdict in time"):
					outcome = "notice: no verdict in time"
				default:
					outcome = "notice: verdict"
				}
			}
			if kind == "annotate" && len(notices) == 0 && outcome == "ran" {
				outcome = "no notice (late)"
			}
			notices = notices[:0]
			nmu.Unlock()
			mu.Lock()
			samples = append(samples, sample{kind, d, outcome})
			mu.Unlock()
		}
	}
	for i := range annotate {
		wg.Add(1)
		go client("annotate", uint64(i))
	}
	for i := range enforce {
		wg.Add(1)
		go client("enforce", uint64(1000+i))
	}
	close(start)
	wg.Wait()
	r := &loadReport{Clients: map[string]int{"annotate": annotate, "enforce": enforce}, Answers: map[string]int{},
		MaxMS: map[string]float64{}, P99MS: map[string]float64{}, P50MS: map[string]float64{}, Outcomes: map[string]int{}, Errors: errs}
	for _, kind := range []string{"annotate", "enforce"} {
		var ds []time.Duration
		for _, s := range samples {
			if s.kind == kind {
				ds = append(ds, s.d)
				r.Outcomes[kind+": "+s.outcome]++
			}
		}
		if len(ds) == 0 {
			continue
		}
		slices.Sort(ds)
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		r.Answers[kind] = len(ds)
		r.MaxMS[kind] = ms(ds[len(ds)-1])
		r.P99MS[kind] = ms(ds[(len(ds)*99)/100])
		r.P50MS[kind] = ms(ds[len(ds)/2])
	}
	if len(errs) > 10 {
		r.Errors = errs[:10]
	}
	return r, nil
}
