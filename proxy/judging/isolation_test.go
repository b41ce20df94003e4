package judging

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/proxy/judgepool"
)

// envJudgeWorker makes the test binary run as a judge worker whose judge
// dies fatally on markFatal. Only this test binary has the trigger: the
// hook is defined here, and pgequiv judge-worker passes none.
const envJudgeWorker = "PGEQUIV_PROXY_TEST_JUDGE_WORKER"

// markFatal in a candidate makes a test judge worker overflow its stack:
// "fatal error: stack overflow", which no recover can catch.
const markFatal = "PGEQUIV_TEST_FATAL"

func runTestJudgeWorker() {
	err := judgepool.RunWorker(&judgepool.WorkerHooks{BeforeJudge: func(_, candidate string) {
		if strings.Contains(candidate, markFatal) {
			debug.SetMaxStack(1 << 20)
			overflow(0)
		}
	}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func overflow(n int) int {
	var pad [128]byte
	pad[n%128] = byte(n)
	return overflow(n+1) + int(pad[(n+1)%128])
}

// startTestJudgePool starts a pool of this test binary as workers; it is
// closed after the test's other cleanups (servers, judgements).
func startTestJudgePool(t testing.TB, workers int, logger *slog.Logger) *judgepool.Pool {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p, err := judgepool.New(judgepool.Options{Workers: workers, Command: []string{exe}, Env: []string{envJudgeWorker + "=1"}, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// startTestDBFree serves database-free mode with judger on a free port.
func startTestDBFree(t testing.TB, judger judgepool.Backend, logger *slog.Logger) string {
	t.Helper()
	return StartTestDBFree(t, kennelSchema(t), judger, logger)
}

// TestIsolationFatalJudge is the fault-injection acceptance test: while a
// judge dies fatally again and again, 24 clients stream results through
// the relay (with tagged, judged queries) and query database-free mode.
// None of their operations fails, each fatal verdict is recorded as an
// error, the workers are restarted, and both servers keep serving and
// judging afterwards.
func TestIsolationFatalJudge(t *testing.T) {
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	pool := startTestJudgePool(t, 3, logger)
	set := annotateSettings(t)
	e := startJudgeProxy(t, set, JudgingOptions{Judger: pool})
	dbfreeConn := startTestDBFree(t, pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx := testCtx(t, 120*time.Second)

	const (
		relayClients, dbfreeClients = 12, 12
		rounds                      = 15
		rows                        = 5000
	)
	var failures atomic.Int64
	var firstErrs sync.Map
	fail := func(who string, err error) {
		if failures.Add(1) <= 10 {
			firstErrs.Store(who+": "+err.Error(), true)
		}
	}
	var clients sync.WaitGroup
	relayCand := withComment(countOwner, countStar)
	for i := range relayClients {
		clients.Add(1)
		go func() {
			defer clients.Done()
			who := fmt.Sprintf("relay client %d", i)
			conn, notices := e.connectNotices(t, ctx, kennelDB)
			for r := range rounds {
				// Stream a result set and check it whole.
				var n, sum int64
				if err := conn.QueryRow(ctx, fmt.Sprintf("SELECT count(*), sum(g) FROM (SELECT generate_series(1, %d + %d * 0) g) s", rows, r)).Scan(&n, &sum); err != nil {
					fail(who, err)
					continue
				}
				if n != rows || sum != rows*(rows+1)/2 {
					fail(who, fmt.Errorf("streamed %d rows summing %d", n, sum))
				}
				got, err := conn.Query(ctx, "SELECT g FROM generate_series(1, $1::int) g", rows)
				if err != nil {
					fail(who, err)
					continue
				}
				count := 0
				for got.Next() {
					count++
				}
				if err := got.Err(); err != nil || count != rows {
					fail(who, fmt.Errorf("streamed %d rows: %v", count, err))
				}
				// A tagged query (simple protocol: judged every time) is
				// judged by the pool while it crashes.
				var c int64
				if err := conn.QueryRow(ctx, relayCand, pgx.QueryExecModeSimpleProtocol).Scan(&c); err != nil {
					fail(who, err)
					continue
				}
				if ns := notices(); len(ns) != 1 || !strings.HasPrefix(ns[0], equivNotice) {
					fail(who, fmt.Errorf("notices %q", ns))
				}
			}
		}()
	}
	for i := range dbfreeClients {
		clients.Add(1)
		go func() {
			defer clients.Done()
			who := fmt.Sprintf("database-free client %d", i)
			conn, err := pgx.Connect(ctx, dbfreeConn)
			if err != nil {
				fail(who, err)
				return
			}
			defer conn.Close(context.Background())
			for r := range rounds {
				var label string
				err := conn.QueryRow(ctx, "SELECT label FROM pgequiv.check($1, $2)", countStar, fmt.Sprintf("SELECT count(dog_id) FROM dogs WHERE age > 5 AND %d = %d", r, r)).Scan(&label)
				if err != nil || label != "equivalent" {
					fail(who, fmt.Errorf("label %q: %v", label, err))
				}
			}
		}()
	}

	// The attacker: fatal judgements through both servers until the
	// clients are done (at least a few of each).
	done := make(chan struct{})
	go func() { clients.Wait(); close(done) }()
	attacker, notices := e.connectNotices(t, ctx, kennelDB)
	dbfreeAttacker, err := pgx.Connect(ctx, dbfreeConn)
	if err != nil {
		t.Fatal(err)
	}
	defer dbfreeAttacker.Close(context.Background())
	var relayFatal, dbfreeFatal int
	for i := 0; ; i++ {
		finished := false
		select {
		case <-done:
			finished = true
		default:
		}
		if finished && relayFatal >= 3 && dbfreeFatal >= 3 {
			break
		}
		fatal := fmt.Sprintf("SELECT count(owner_id) FROM dogs WHERE age > 5 /* %s %d */", markFatal, i)
		if i%2 == 0 {
			var c int64
			// The relayed query itself runs; only its verdict is lost.
			if err := attacker.QueryRow(ctx, withComment(fatal, countStar), pgx.QueryExecModeSimpleProtocol).Scan(&c); err != nil {
				t.Fatalf("relayed query with a fatal judgement: %v", err)
			}
			if ns := notices(); len(ns) != 1 || !strings.Contains(ns[0], "cannot judge: "+judgepool.ErrWorkerDied.Error()) {
				t.Fatalf("fatal judgement notices %q", ns)
			}
			relayFatal++
		} else {
			var label string
			err := dbfreeAttacker.QueryRow(ctx, "SELECT label FROM pgequiv.check($1, $2)", countStar, fatal).Scan(&label)
			if err == nil || !strings.Contains(err.Error(), "the judge failed on this query") || !strings.Contains(err.Error(), "XX000") {
				t.Fatalf("database-free fatal judgement: %q, %v", label, err)
			}
			dbfreeFatal++
		}
	}
	<-done
	firstErrs.Range(func(k, _ any) bool { t.Error(k); return true })
	if n := failures.Load(); n != 0 {
		t.Fatalf("%d failed client operations", n)
	}
	sup := pool.Supervision()
	t.Logf("fatal judgements: %d relayed, %d database-free; supervision %+v", relayFatal, dbfreeFatal, sup)
	if want := uint64(relayFatal + dbfreeFatal); sup.Deaths != want {
		t.Errorf("%d worker deaths, want %d (one per fatal judgement)", sup.Deaths, want)
	}
	// A notice reaches the client before its verdict is recorded: wait
	// for the background judgements to end.
	e.j.Wait()
	errored := 0
	for _, v := range e.j.RecentVerdicts() {
		// (The recorded query is redacted; the summary names the cause.)
		if strings.Contains(v.Summary, judgepool.ErrWorkerDied.Error()) {
			if v.Label != "error" {
				t.Errorf("fatal judgement recorded as %q, want error", v.Label)
			}
			errored++
		} else if v.Label != "equivalent" {
			t.Errorf("verdict %q: %s", v.Label, v.Summary)
		}
	}
	if st := statMap(e.j); errored != relayFatal || st["errors"] != uint64(relayFatal) || st["judge_worker_deaths"] != sup.Deaths {
		t.Errorf("recent fatal verdicts %d, stats errors %d (want %d), judge_worker_deaths %d", errored, st["errors"], relayFatal, st["judge_worker_deaths"])
	}
	if !strings.Contains(logs.String(), "fatal error: stack overflow") {
		t.Error("the worker's fatal error is not in the proxy log")
	}

	// Both keep serving and judging.
	var c int64
	if err := attacker.QueryRow(ctx, relayCand, pgx.QueryExecModeSimpleProtocol).Scan(&c); err != nil {
		t.Fatal(err)
	}
	if ns := notices(); len(ns) != 1 || !strings.HasPrefix(ns[0], equivNotice) {
		t.Errorf("after the faults: notices %q", ns)
	}
	var label string
	if err := dbfreeAttacker.QueryRow(ctx, "SELECT label FROM pgequiv.check($1, $2)", countStar, countOwner).Scan(&label); err != nil || label != "equivalent" {
		t.Errorf("database-free after the faults: %q, %v", label, err)
	}
}

// BenchmarkIsolationAnnotate measures the p50 latency a tagged query adds
// over an untagged one through the relay in annotate mode with a warm
// reference cache, with judge_isolation none (in-process) and process (a
// pool of workers), interleaved in one run so that both see the same
// machine:
//
//	go test -run '^$' -bench IsolationAnnotate -benchtime 3000x ./proxy
//
// It reports p50 latencies in µs: untagged, tagged per isolation, and
// the added p50 per isolation (goal ≤ 1000 µs).
func BenchmarkIsolationAnnotate(b *testing.B) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	pool := startTestJudgePool(b, 2, quiet)
	set := annotateSettings(b)
	local := startJudgeProxy(b, set, JudgingOptions{})
	isolated := startJudgeProxy(b, set, JudgingOptions{Judger: pool})
	ctx := testCtx(b, time.Hour)
	connLocal, noticesLocal := local.connectNotices(b, ctx, kennelDB)
	connIso, noticesIso := isolated.connectNotices(b, ctx, kennelDB)
	// Three kinds of verdict: proved by the rules, refuted by a
	// counterexample database, and unknown after a search that found
	// none. Warm, the last two come from the judge's refutation cache.
	for _, pair := range []struct{ name, query, reference, notice string }{
		{"proved", countOwner, countStar, equivNotice},
		{"refuted", countOwner, "SELECT count(owner_id) FROM dogs WHERE age > 6", "pgequiv: not_equivalent (score "},
		{"searched", "SELECT count(*) FROM dogs WHERE age * 2 > 10", countStar, "pgequiv: unknown (likely "},
	} {
		b.Run(pair.name, func(b *testing.B) {
			untagged := pair.query
			tagged := withComment(pair.query, pair.reference)
			run := func(conn *pgx.Conn, sql string) time.Duration {
				start := time.Now()
				var n int64
				if err := conn.QueryRow(ctx, sql, pgx.QueryExecModeSimpleProtocol).Scan(&n); err != nil {
					b.Fatal(err)
				}
				return time.Since(start)
			}
			// Warm the caches (and check that verdicts arrive).
			for _, c := range []struct {
				conn    *pgx.Conn
				notices func() []string
			}{{connLocal, noticesLocal}, {connIso, noticesIso}} {
				run(c.conn, tagged)
				if ns := c.notices(); len(ns) != 1 || !strings.HasPrefix(ns[0], pair.notice) {
					b.Fatalf("notices %q, want one starting %q", ns, pair.notice)
				}
			}
			var lu, ll, li []time.Duration
			for b.Loop() {
				lu = append(lu, run(connLocal, untagged))
				ll = append(ll, run(connLocal, tagged))
				li = append(li, run(connIso, tagged))
			}
			noticesLocal()
			noticesIso()
			p50 := func(d []time.Duration) float64 {
				slices.Sort(d)
				return float64(d[len(d)/2].Nanoseconds()) / 1e3
			}
			u, l, i := p50(lu), p50(ll), p50(li)
			b.ReportMetric(u, "untagged-p50-µs")
			b.ReportMetric(l, "tagged-none-p50-µs")
			b.ReportMetric(i, "tagged-process-p50-µs")
			b.ReportMetric(l-u, "added-none-p50-µs")
			b.ReportMetric(i-u, "added-process-p50-µs")
			b.ReportMetric(0, "ns/op") // the op is three queries; the p50s are the figures
		})
	}
}
