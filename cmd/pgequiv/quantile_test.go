package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgequiv/pgequiv/proxy/judging"
)

// promScalar runs an instant query that returns one sample and returns
// its value.
func promScalar(t *testing.T, base, expr string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Status != "success" || len(r.Data.Result) != 1 {
		t.Fatalf("prometheus query %s: %v %+v", expr, err, r)
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("prometheus query %s: value %q", expr, s)
	}
	return v
}

// adminLatencies reads the recorded judgements' latencies, in seconds,
// from the admin console's SHOW VERDICTS (user user, database db),
// leaving out the first judgement of each metric series (label, mode,
// reference): Prometheus's rate counts only what a series gained after it
// first saw it. It also returns how many judgements were listed.
func adminLatencies(t *testing.T, ctx context.Context, port int, user, db string) ([]float64, int) {
	t.Helper()
	conn, err := pgx.Connect(ctx, fmt.Sprintf("host=127.0.0.1 port=%d user=%s dbname=%s sslmode=disable", port, user, db))
	if err != nil {
		t.Fatalf("admin console: %v", err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SHOW VERDICTS", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := pgx.CollectRows(rows, pgx.RowToMap)
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	seen := map[string]bool{}
	for i := len(recs) - 1; i >= 0; i-- { // oldest first
		m := recs[i]
		ms, ok := m["latency_ms"].(float64)
		if !ok {
			t.Fatalf("SHOW VERDICTS latency_ms %T", m["latency_ms"])
		}
		key := fmt.Sprint(m["label"], "|", m["mode"], "|", m["reference_id"], "|", m["reference"] == "")
		if !seen[key] {
			seen[key] = true // the series' birth
			continue
		}
		out = append(out, ms/1000)
	}
	return out, len(recs)
}

// bucketOf is the index of the histogram bucket holding x: the first
// bound at or above it (len(bounds) for +Inf).
func bucketOf(x float64) int {
	i, _ := slices.BinarySearch(judging.JudgeDurationBuckets, x)
	return i
}

// quantile is the q-quantile of sorted xs (nearest rank, as
// histogram_quantile's rank q*count).
func quantile(xs []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[max(i, 0)]
}

// checkDashboardQuantiles compares the Grafana dashboard's judge latency
// p50 and p99, run by Prometheus, with the latencies the judgements
// actually took: each must land within one histogram bucket of the truth.
func checkDashboardQuantiles(t *testing.T, prom string, latencies []float64) {
	t.Helper()
	slices.Sort(latencies)
	found := 0
	for _, p := range dashboardExprs(t) {
		if !strings.HasPrefix(p.expr, "histogram_quantile(") {
			continue
		}
		found++
		arg, _, _ := strings.Cut(strings.TrimPrefix(p.expr, "histogram_quantile("), ",")
		q, err := strconv.ParseFloat(arg, 64)
		if err != nil {
			t.Fatalf("%s: %v", p.expr, err)
		}
		got := promScalar(t, prom, strings.ReplaceAll(p.expr, "$__rate_interval", "1m"))
		want := quantile(latencies, q)
		// The histogram and SHOW VERDICTS time a judgement a little
		// apart, and at p99 of a few hundred judgements a rank is three
		// samples: a sample that lands in the next bucket in one and not
		// the other moves the quantile by several buckets. So the
		// dashboard must lie within one bucket of the measured quantile
		// at some rank within one point of q.
		lo, hi := quantile(latencies, max(q-0.01, 0)), quantile(latencies, min(q+0.01, 1))
		t.Logf("p%g: dashboard %.6fs (bucket %d), measured %.6fs (bucket %d; %.6fs to %.6fs within a point) over %d judgements",
			q*100, got, bucketOf(got), want, bucketOf(want), lo, hi, len(latencies))
		if b := bucketOf(got); b < bucketOf(lo)-1 || b > bucketOf(hi)+1 {
			t.Errorf("p%g: the dashboard shows %.6fs (bucket %d), over a bucket from the measured %.6fs to %.6fs (buckets %d to %d)", q*100, got, b, lo, hi, bucketOf(lo), bucketOf(hi))
		}
	}
	if found != 2 {
		t.Fatalf("dashboard has %d latency quantiles, want p50 and p99", found)
	}
}
