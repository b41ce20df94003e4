package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgequiv/pgequiv/internal/pgtest"
	"github.com/pgequiv/pgequiv/telemetry"
)

// TestTelemetryReachesRealBackends (issue 11, acceptance 1 and 5): the
// proxy judges tagged queries sent by psql and pgx while a real
// Prometheus scrapes its /metrics and the OpenTelemetry Collector's OTLP
// receiver (test/otlpreceiver) takes its spans (OTLP/gRPC) and metrics
// (OTLP/HTTP, chosen through OTEL_* variables, which win over the file).
// The verdict counter is read back through Prometheus's query API; each
// pgequiv.judge span has the traceparent of its query's comment as
// parent; every expression of the shipped Grafana dashboard names a
// metric the proxy exports and returns data from that Prometheus.
func TestTelemetryReachesRealBackends(t *testing.T) {
	dir := t.TempDir()
	// A cold build of the receiver takes minutes (install-test-deps.sh
	// warms the build cache); the test's own budget starts after it.
	bin := buildOTLPReceiver(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()

	recvOut := filepath.Join(dir, "otlp.jsonl")
	grpcAddr, httpAddr := startOTLPReceiver(t, bin, recvOut)

	writeTelemetryRelay(t, ctx, dir, grpcAddr)
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://" + httpAddr + "/v1/metrics",
		"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "http/protobuf",
		"OTEL_METRIC_EXPORT_INTERVAL":         "500",
		"OTEL_SERVICE_NAME":                   "pgequiv-test",
	}
	port, metricsAddr := startServeTelemetry(t, ctx, filepath.Join(dir, "proxy.yaml"), func(k string) string { return env[k] })
	prom := startPrometheus(t, ctx, dir, metricsAddr)
	// Queries go after the first scrape, so that rates over the window
	// see the counters rise.
	waitPromData(t, ctx, prom, `up{job="pgequiv"} == 1`, 1)

	// psql, simple protocol: a catalog reference by id; equivalent
	// (twice), then not.
	// A histogram series is born with its first verdict, and a rate
	// sees only what rises after Prometheus's first scrape of it: every
	// judgement of a new series made before that scrape is invisible to
	// the dashboard. So each new (label, reference) waits for its scrape
	// before the next judgement, and only the births are left out of the
	// measured quantiles (adminLatencies).
	born := map[string]bool{}
	scraped := func(notice, ref string) {
		m := regexp.MustCompile(`pgequiv: ([a-z_]+)`).FindStringSubmatch(notice)
		if m == nil {
			t.Fatalf("no verdict label in %q", notice)
		}
		if key := m[1] + "|" + ref; !born[key] {
			born[key] = true
			waitPromData(t, ctx, prom, fmt.Sprintf(`pgequiv_judge_duration_seconds_count{label=%q,reference_id=%q}`, m[1], ref), 1)
		}
	}
	tid1, sid1 := "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	tid3, sid3 := "5bf92f3577b34da6a3ce929d0e0e4737", "10f067aa0ba902b8"
	for i, q := range []string{
		"SELECT count(v) FROM t /*pgequiv_ref_id='count_t'*/",
		fmt.Sprintf("SELECT count(v) FROM t /*pgequiv_ref_id='count_t',traceparent='00-%s-%s-01'*/", tid1, sid1),
		fmt.Sprintf("SELECT count(*), 1 FROM t /*pgequiv_ref_id='count_t',traceparent='00-%s-%s-01'*/", tid3, sid3),
	} {
		out := runPsql(t, ctx, port, q)
		if !strings.Contains(out, "NOTICE:  pgequiv: ") {
			t.Fatalf("psql: no verdict notice:\n%s", out)
		}
		scraped(out, "count_t")
		if i == 0 {
			// Sub-millisecond buckets exist (the SDK's default bounds
			// start at 5 seconds for a histogram in seconds).
			waitPromData(t, ctx, prom, `pgequiv_judge_duration_seconds_bucket{le="0.001"}`, 1)
		}
	}
	// pgx: an inline reference, with a tracestate.
	tid2, sid2 := "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	conn, notices := connectNotices(t, ctx, port)
	var n int64
	q := fmt.Sprintf("SELECT count(*) FROM t AS x /*pgequiv_ref='SELECT%%20count(*)%%20FROM%%20t',traceparent='00-%s-%s-01',tracestate='app%%3Dfe'*/", tid2, sid2)
	if err := conn.QueryRow(ctx, q).Scan(&n); err != nil || n != 1 {
		t.Fatalf("pgx: %v (count %d)", err, n)
	}
	select {
	case m := <-notices:
		if !strings.HasPrefix(m, "pgequiv: equivalent") {
			t.Fatalf("pgx notice %q", m)
		}
		scraped(m, "inline")
	case <-ctx.Done():
		t.Fatal("pgx: no verdict notice")
	}
	// More judgements for the latency quantiles (acceptance 1).
	const more = 300
	for i := 0; i < more; i++ {
		q := "SELECT count(v) FROM t /*pgequiv_ref_id='count_t'*/"
		if i%3 == 0 {
			q = fmt.Sprintf("SELECT count(*) FROM t WHERE v > %d /*pgequiv_ref_id='count_t'*/", i)
		}
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
		scraped(<-notices, "count_t")
	}
	conn.Close(ctx)
	judged := 4 + more
	waitPromData(t, ctx, prom, fmt.Sprintf(`sum(pgequiv_judge_duration_seconds_count) >= %d`, judged), 1)
	checkDashboardQuantiles(t, prom, waitListed(t, ctx, port, judged))

	// (a) the verdict counter through Prometheus's query API.
	waitPromData(t, ctx, prom, `sum(pgequiv_verdicts_total{label="equivalent",mode="annotate"}) >= 2`, 1)
	waitPromData(t, ctx, prom, `pgequiv_verdicts_total{label="equivalent",reference_id="count_t"}`, 1)
	waitPromData(t, ctx, prom, `pgequiv_verdicts_total{label="equivalent",reference_id="inline"}`, 1)
	waitPromData(t, ctx, prom, `pgequiv_verdicts_total{label="not_equivalent",reference_id="count_t"}`, 1)

	// (b) the judge spans in the receiver, children of the application's
	// spans; and the metrics over OTLP/HTTP.
	spans := waitSpans(t, ctx, recvOut, map[string]string{tid1: sid1, tid2: sid2, tid3: sid3})
	checkJudgeSpans(t, spans)
	if l := spans[tid1].attrs["pgequiv.label"]; l != "equivalent" {
		t.Errorf("psql span label %q", l)
	}
	if ts := spans[tid2].traceState; ts != "app=fe" {
		t.Errorf("pgx span trace state %q, want app=fe", ts)
	}
	waitFileHas(t, ctx, recvOut, `"name":"pgequiv.verdicts"`)
	checkDashboardExprs(t, ctx, prom, metricsAddr) // acceptance 5
}

// connectNotices connects pgx to the proxy on port; the notices it gets
// arrive on notices.
func connectNotices(t *testing.T, ctx context.Context, port int) (conn *pgx.Conn, notices chan string) {
	t.Helper()
	cfg, err := pgx.ParseConfig(pgtest.ConnString("127.0.0.1", port, pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	notices = make(chan string, 4)
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices <- n.Message }
	if conn, err = pgx.ConnectConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	return conn, notices
}

// writeTelemetryRelay creates table t on a throwaway PostgreSQL and
// writes, into dir, the config of a relay to it in annotate mode that
// exports telemetry to grpcAddr, with its schema file and a catalog
// holding reference count_t.
func writeTelemetryRelay(t *testing.T, ctx context.Context, dir, grpcAddr string) {
	t.Helper()
	pg := pgtest.New(t, pgtest.Options{})
	ddl := "CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL);"
	direct, err := pgconn.Connect(ctx, pg.ConnString(pgtest.SuperUser, ""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := direct.Exec(ctx, ddl+"INSERT INTO t VALUES (1, 10);").ReadAll(); err != nil {
		t.Fatal(err)
	}
	direct.Close(ctx)
	for name, body := range map[string]string{
		"schema.sql":   ddl,
		"catalog.yaml": "references:\n  - id: count_t\n    reference: SELECT count(*) FROM t\n",
		"proxy.yaml": fmt.Sprintf("listen: 127.0.0.1:0\nupstream:\n  address: %s\n  tls_mode: disable\nlog_level: error\n"+
			"shutdown_timeout: 5s\nmode: annotate\nschema:\n  files: [schema.sql]\ncatalog: catalog.yaml\n"+
			"metrics_listen: 127.0.0.1:0\nadmin:\n  users: [ops]\n  auth: trust\n  recent_verdicts: 1000\ntelemetry:\n  endpoint: http://%s\n  protocol: grpc\n"+
			"  resource:\n    deployment.environment.name: test\n    service.name: from-the-file\n", pg.Addr(), grpcAddr),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// waitListed waits until the admin console's SHOW VERDICTS lists judged
// judgements (each is recorded just after its notice), and returns their
// latencies.
func waitListed(t *testing.T, ctx context.Context, port, judged int) []float64 {
	t.Helper()
	latencies, listed := adminLatencies(t, ctx, port, "ops", "pgequiv")
	for ; listed < judged; latencies, listed = adminLatencies(t, ctx, port, "ops", "pgequiv") {
		select {
		case <-ctx.Done():
			t.Fatalf("SHOW VERDICTS lists %d judgements, want %d", listed, judged)
		case <-time.After(50 * time.Millisecond):
		}
	}
	return latencies
}

// checkJudgeSpans checks the attributes every judge span has.
func checkJudgeSpans(t *testing.T, spans map[string]recvSpan) {
	t.Helper()
	for tid, s := range spans {
		if s.attrs["db.system.name"] != "postgresql" || s.attrs["db.namespace"] != "postgres" || s.attrs["pgequiv.label"] == "" {
			t.Errorf("span of trace %s: attributes %v", tid, s.attrs)
		}
		if strings.Contains(s.attrs["db.query.text"], "pgequiv_ref") {
			t.Errorf("span of trace %s: db.query.text %q keeps the comment", tid, s.attrs["db.query.text"])
		}
		if s.service != "pgequiv-test" {
			t.Errorf("span of trace %s: service.name %q, want OTEL_SERVICE_NAME's", tid, s.service)
		}
	}
}

// checkDashboardExprs checks that every metric the dashboard's panels
// name is exported on /metrics (at metricsAddr), and that each panel's
// expression returns data from prom.
func checkDashboardExprs(t *testing.T, ctx context.Context, prom, metricsAddr string) {
	t.Helper()
	exported := scrape(t, ctx, metricsAddr)
	for _, p := range dashboardExprs(t) {
		for _, name := range regexp.MustCompile(`pgequiv_[a-z_]+`).FindAllString(p.expr, -1) {
			if !exported[name] {
				t.Errorf("dashboard panel %q names %s, which /metrics does not export", p.title, name)
			}
		}
		expr := strings.ReplaceAll(p.expr, "$__rate_interval", "1m")
		waitPromData(t, ctx, prom, expr, 1)
		t.Logf("panel %q: %s returns data", p.title, expr)
	}
}

// startServeTelemetry starts serve and returns its port and the address
// of its /metrics endpoint.
func startServeTelemetry(t *testing.T, ctx context.Context, path string, getenv func(string) string) (int, string) {
	t.Helper()
	metricsCh := make(chan string, 1)
	port, stop := serveOn(t, ctx, path, serveEnv{
		reload: make(chan os.Signal), getenv: getenv, stderr: io.Discard,
		telemetry: func(tel *telemetry.Telemetry) { metricsCh <- tel.MetricsAddr() },
	})
	t.Cleanup(stop)
	// serve installs telemetry before it listens.
	var metricsAddr string
	select {
	case metricsAddr = <-metricsCh:
	default:
	}
	return port, metricsAddr
}

// buildOTLPReceiver builds test/otlpreceiver (its own module) into dir.
func buildOTLPReceiver(t *testing.T, dir string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	bin := filepath.Join(dir, "otlpreceiver")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("..", "..", "test", "otlpreceiver")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building test/otlpreceiver (scripts/install-test-deps.sh downloads its modules): %v\n%s", err, b)
	}
	return bin
}

// startOTLPReceiver starts the receiver; it returns the OTLP/gRPC and
// OTLP/HTTP addresses.
func startOTLPReceiver(t *testing.T, bin, out string) (grpcAddr, httpAddr string) {
	t.Helper()
	cmd := exec.Command(bin, "-out", out)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close() // the receiver exits when its input closes
		if err := cmd.Wait(); err != nil {
			t.Errorf("otlpreceiver: %v", err)
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("otlpreceiver did not start: %v", err)
	}
	if _, err := fmt.Sscanf(strings.TrimSpace(line), "ready grpc=%s http=%s", &grpcAddr, &httpAddr); err != nil {
		t.Fatalf("otlpreceiver: %q: %v", line, err)
	}
	return grpcAddr, httpAddr
}

// startPrometheus starts the prometheus server (Debian package
// prometheus) scraping target every 250ms; it returns its URL once ready.
func startPrometheus(t *testing.T, ctx context.Context, dir, target string) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatalf("prometheus not found (scripts/install-test-deps.sh installs it): %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	conf := filepath.Join(dir, "prometheus.yml")
	body := fmt.Sprintf("global:\n  scrape_interval: 250ms\n  scrape_timeout: 200ms\nscrape_configs:\n  - job_name: pgequiv\n    static_configs:\n      - targets: ['%s']\n", target)
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config.file="+conf, "--storage.tsdb.path="+filepath.Join(dir, "tsdb"),
		"--web.listen-address="+addr, "--web.enable-lifecycle")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		<-exited
		logf.Close()
	})
	base := "http://" + addr
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, err := http.Get(base + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		select {
		case err := <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
			t.Fatalf("prometheus exited: %v\n%s", err, log)
		case <-ctx.Done():
			t.Fatal("prometheus did not become ready")
		case <-tick.C:
		}
	}
}

// waitPromData polls Prometheus's instant query API until expr returns at
// least min samples that are numbers.
func waitPromData(t *testing.T, ctx context.Context, base, expr string, min int) {
	t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(expr))
		if err == nil {
			var r struct {
				Status string `json:"status"`
				Error  string `json:"error"`
				Data   struct {
					Result []struct {
						Value [2]any `json:"value"`
					} `json:"result"`
				} `json:"data"`
			}
			err = json.NewDecoder(resp.Body).Decode(&r)
			resp.Body.Close()
			if err == nil && r.Status != "success" {
				t.Fatalf("prometheus query %s: %s", expr, r.Error)
			}
			// A sample counts when it is a number: NaN (0/0 of rates
			// that did not move) is no data.
			n := 0
			for _, s := range r.Data.Result {
				if v, ok := s.Value[1].(string); ok && v != "NaN" {
					n++
				}
			}
			if err == nil && n >= min {
				return
			}
			last = fmt.Sprintf("%d numeric results of %d", n, len(r.Data.Result))
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			t.Fatalf("prometheus query %s: no data (%s)", expr, last)
		case <-tick.C:
		}
	}
}

type recvSpan struct {
	attrs      map[string]string
	service    string
	traceState string
}

// waitSpans polls the receiver's file until, for every trace id in want,
// a pgequiv.judge span of that trace has the wanted parent span id.
func waitSpans(t *testing.T, ctx context.Context, path string, want map[string]string) map[string]recvSpan {
	t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		got := map[string]recvSpan{}
		b, _ := os.ReadFile(path)
		for _, line := range strings.Split(string(b), "\n") {
			var td struct {
				ResourceSpans []struct {
					Resource   struct{ Attributes []otlpKV } `json:"resource"`
					ScopeSpans []struct {
						Spans []struct {
							TraceID      string   `json:"traceId"`
							ParentSpanID string   `json:"parentSpanId"`
							TraceState   string   `json:"traceState"`
							Name         string   `json:"name"`
							Attributes   []otlpKV `json:"attributes"`
						} `json:"spans"`
					} `json:"scopeSpans"`
				} `json:"resourceSpans"`
			}
			if json.Unmarshal([]byte(line), &td) != nil {
				continue
			}
			for _, rs := range td.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, s := range ss.Spans {
						if s.Name == "pgequiv.judge" && want[s.TraceID] != "" && want[s.TraceID] == s.ParentSpanID {
							got[s.TraceID] = recvSpan{attrs: kvMap(s.Attributes), service: kvMap(rs.Resource.Attributes)["service.name"], traceState: s.TraceState}
						}
					}
				}
			}
		}
		if len(got) == len(want) {
			return got
		}
		select {
		case <-ctx.Done():
			t.Fatalf("receiver got judge spans for %d of the traces %v", len(got), want)
		case <-tick.C:
		}
	}
}

type otlpKV struct {
	Key   string `json:"key"`
	Value struct {
		String *string  `json:"stringValue"`
		Double *float64 `json:"doubleValue"`
	} `json:"value"`
}

func kvMap(kvs []otlpKV) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		switch {
		case kv.Value.String != nil:
			m[kv.Key] = *kv.Value.String
		case kv.Value.Double != nil:
			m[kv.Key] = strconv.FormatFloat(*kv.Value.Double, 'g', -1, 64)
		}
	}
	return m
}

func waitFileHas(t *testing.T, ctx context.Context, path, s string) {
	t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, _ := os.ReadFile(path); strings.Contains(string(b), s) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s never had %s", path, s)
		case <-tick.C:
		}
	}
}

func runPsql(t *testing.T, ctx context.Context, port int, sql string) string {
	t.Helper()
	psql, err := exec.LookPath("psql")
	if err != nil {
		bin, berr := pgtest.FindBinDir()
		if berr != nil {
			t.Fatalf("psql not found (run scripts/install-test-deps.sh): %v", err)
		}
		psql = bin + "/psql"
	}
	cmd := exec.CommandContext(ctx, psql, "-X", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", strconv.Itoa(port),
		"-U", pgtest.SuperUser, "-d", "postgres", "-c", sql)
	cmd.Env = append(os.Environ(), "PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	return string(out)
}

// scrape returns the metric family names on the proxy's /metrics
// (histograms as their _bucket, _sum and _count series).
func scrape(t *testing.T, ctx context.Context, addr string) map[string]bool {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	names := map[string]bool{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, _, _ := strings.Cut(line, "{")
		name, _, _ = strings.Cut(name, " ")
		names[name] = true
	}
	return names
}

type dashboardExpr struct{ title, expr string }

// dashboardExprs reads docs/grafana/pgequiv.json's panel expressions,
// with the dashboard's job and instance variables set to All (Grafana's
// allValue ".+"), as Prometheus gets them from Grafana.
func dashboardExprs(t *testing.T) []dashboardExpr {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "grafana", "pgequiv.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("docs/grafana/pgequiv.json: %v", err)
	}
	var out []dashboardExpr
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			expr := strings.NewReplacer(`"$job"`, `".+"`, `"$instance"`, `".+"`).Replace(tg.Expr)
			out = append(out, dashboardExpr{p.Title, expr})
		}
	}
	if len(out) < 10 {
		t.Fatalf("dashboard has %d expressions", len(out))
	}
	return out
}
