package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
)

// labels in report order; "timeout" and "error" are outcomes without a
// verdict.
var labels = []string{"equivalent", "equivalent_under_assumptions", "not_equivalent", "unknown", "timeout", "error"}

// report prints the figures and returns the number of wrong labels: an
// equivalent rewrite (identity, reorder) labelled not_equivalent.
func report(w io.Writer, b *bench, cfg benchConfig, rs []result, list bool) int {
	mode := "shared judge (prepared references reused, as in the proxy's workers)"
	if cfg.Cold {
		mode = "cold (a fresh judge per pair)"
	}
	fmt.Fprintf(w, "tpcdsbench: verdict_timeout %v (judge deadline %v), refute_budget %v, %s\n",
		cfg.Timeout, judgeDeadline(cfg.Timeout), cfg.Budget, mode)

	unplanned := map[string]string{} // query → why its reference does not plan
	statements := map[string]bool{}
	for _, r := range rs {
		statements[r.Query] = true
		if r.Kind == "identity" && r.Unplanned {
			unplanned[r.Query] = firstLine(r.Error + r.Reason)
			if r.PGError != "" {
				unplanned[r.Query] = "PostgreSQL refuses it too: " + r.PGError
			}
		}
	}
	fmt.Fprintf(w, "statements: %d (of %d queries), %d plan, %d do not\n",
		len(statements), countFiles(b), len(statements)-len(unplanned), len(unplanned))
	printReasons(w, unplanned)

	var planned []result
	for _, r := range rs {
		if _, bad := unplanned[r.Query]; !bad {
			planned = append(planned, r)
		}
	}
	fmt.Fprintf(w, "pairs: %d judged, %d with a reference that plans\n", len(rs), len(planned))
	printLabels(w, planned)
	printLatency(w, "verdict latency, pairs that plan", planned, func(r result) time.Duration { return r.Latency })
	printLatency(w, "verdict latency, all pairs", rs, func(r result) time.Duration { return r.Latency })

	var timeouts, errs []result
	wrong := 0
	invalid := map[string]int{} // kind → variants PostgreSQL refuses
	for _, r := range planned {
		switch {
		case r.TimedOut:
			timeouts = append(timeouts, r)
		case r.Error != "":
			errs = append(errs, r)
		}
		if r.Equivalent && r.Label == "not_equivalent" {
			wrong++
			fmt.Fprintf(w, "WRONG LABEL: query %s %s: not_equivalent (%s)\n", r.Query, r.Kind, r.Reason)
		}
		if r.PGError != "" {
			invalid[r.Kind]++
		}
		if !r.Equivalent && strings.HasPrefix(r.Label, "equivalent") && r.PGError == "" {
			fmt.Fprintf(w, "PROVED MUTANT (check by hand): query %s %s: %s\n", r.Query, r.Kind, r.Label)
		}
	}
	if cfg.PG != nil {
		fmt.Fprintf(w, "checked on PostgreSQL (EXPLAIN): candidates it refuses, by kind: %v\n", invalid)
	}
	fmt.Fprintf(w, "timeouts: %d; errors: %d; wrong labels: %d\n", len(timeouts), len(errs), wrong)
	for _, r := range append(timeouts, errs...) {
		fmt.Fprintf(w, "  query %s %s: %s after %v %s\n", r.Query, r.Kind, r.Label, r.Latency.Round(time.Millisecond), firstLine(r.Error))
	}

	reorderReport(w, planned, list)
	planReport(w, planned)
	return wrong
}

func countFiles(b *bench) int {
	n := map[string]bool{}
	for _, q := range b.queries {
		n[strings.TrimRight(q.ID, "ab")] = true
	}
	return len(n)
}

// printReasons groups why references do not plan, most frequent first.
func printReasons(w io.Writer, why map[string]string) {
	byReason := map[string][]string{}
	for q, r := range why {
		byReason[r] = append(byReason[r], q)
	}
	reasons := make([]string, 0, len(byReason))
	for r := range byReason {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if a, b := len(byReason[reasons[i]]), len(byReason[reasons[j]]); a != b {
			return a > b
		}
		return reasons[i] < reasons[j]
	})
	for _, r := range reasons {
		qs := byReason[r]
		slices.SortFunc(qs, compareIDs)
		fmt.Fprintf(w, "  %d × %s (queries %s)\n", len(qs), r, strings.Join(qs, ", "))
	}
}

func printLabels(w io.Writer, rs []result) {
	kinds := append([]string{"identity", "reorder", "reorder_from", "reorder_where"}, mutationOps...)
	for _, k := range kinds {
		counts := map[string]int{}
		n := 0
		for _, r := range rs {
			if r.Kind == k {
				counts[r.Label]++
				n++
			}
		}
		if n == 0 {
			continue
		}
		var parts []string
		for _, l := range labels {
			if c := counts[l]; c > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", l, c))
			}
		}
		fmt.Fprintf(w, "  %-15s %3d: %s\n", k, n, strings.Join(parts, ", "))
	}
}

func printLatency(w io.Writer, title string, rs []result, of func(result) time.Duration) {
	if len(rs) == 0 {
		return
	}
	ds := make([]time.Duration, len(rs))
	for i, r := range rs {
		ds[i] = of(r)
	}
	slices.Sort(ds)
	fmt.Fprintf(w, "%s (%d): p50 %v, p90 %v, p99 %v, max %v\n", title, len(ds),
		quantile(ds, 0.5), quantile(ds, 0.9), quantile(ds, 0.99), ds[len(ds)-1].Round(10*time.Microsecond))
}

// quantile is the nearest-rank quantile of sorted ds.
func quantile(ds []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(ds))+0.999999) - 1
	i = max(0, min(i, len(ds)-1))
	return ds[i].Round(10 * time.Microsecond)
}

// reorderReport is issue 35 acceptance 3: each query proved equal to
// itself with its WHERE terms and FROM lists reordered, and the plan +
// prove time per pair.
func reorderReport(w io.Writer, rs []result, list bool) {
	var re []result
	proved := 0
	for _, r := range rs {
		if r.Kind != "reorder" {
			continue
		}
		re = append(re, r)
		if strings.HasPrefix(r.Label, "equivalent") {
			proved++
		}
	}
	fmt.Fprintf(w, "reordered pairs: %d, proved %d\n", len(re), proved)
	printLatency(w, "  plan+prove, reordered pairs", re, func(r result) time.Duration { return r.PlanProve })
	for _, r := range rs {
		if strings.HasPrefix(r.Kind, "reorder") && !strings.HasPrefix(r.Label, "equivalent") {
			fmt.Fprintf(w, "  not proved: query %s %s: %s: %s%s\n", r.Query, r.Kind, r.Label, firstLine(r.Reason), firstLine(r.Error))
		}
	}
	if !list {
		return
	}
	for _, r := range rs {
		if !strings.HasPrefix(r.Kind, "reorder") && !r.TimedOut && !(!r.Equivalent && strings.HasPrefix(r.Label, "equivalent")) {
			continue
		}
		fmt.Fprintf(w, "-- query %s %s: %s\n%s\n", r.Query, r.Kind, r.Label, r.SQL)
	}
}

// planReport lists the slowest plans (both queries of the identity
// pair).
func planReport(w io.Writer, rs []result) {
	var id []result
	for _, r := range rs {
		if r.Kind == "identity" {
			id = append(id, r)
		}
	}
	if len(id) == 0 {
		return
	}
	sort.Slice(id, func(i, j int) bool { return id[i].Timings.Plan > id[j].Timings.Plan })
	printLatency(w, "plan time, identity pairs", id, func(r result) time.Duration { return r.Timings.Plan })
	var parts []string
	for _, r := range id[:min(5, len(id))] {
		parts = append(parts, fmt.Sprintf("%s %v", r.Query, r.Timings.Plan.Round(100*time.Microsecond)))
	}
	fmt.Fprintf(w, "  slowest plans: %s\n", strings.Join(parts, ", "))
}

func compareIDs(a, b string) int {
	na, nb := 0, 0
	fmt.Sscanf(a, "%d", &na)
	fmt.Sscanf(b, "%d", &nb)
	if na != nb {
		return na - nb
	}
	return strings.Compare(a, b)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
