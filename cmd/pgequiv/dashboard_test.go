package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDashboardVariables (issue 37, item 6): the Grafana dashboard has job
// and instance variables, every series it queries is filtered by both,
// and every sum keeps instance apart, so several proxies are not summed
// into one line. The variables' query reads a metric every proxy exports
// from its start. (TestTelemetry and TestTelemetryDatabaseFree run each
// expression on a real Prometheus.)
func TestDashboardVariables(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "grafana", "pgequiv.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Templating struct {
			List []struct {
				Name, Definition  string
				Multi, IncludeAll bool
				AllValue          string `json:"allValue"`
			}
		}
		Panels []struct {
			Title   string
			Targets []struct {
				Expr, LegendFormat string
			}
		}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, v := range d.Templating.List {
		if !v.Multi || !v.IncludeAll || v.AllValue != ".+" {
			t.Errorf("variable %s: multi %v, includeAll %v, allValue %q; want a multi-value variable with All = .+", v.Name, v.Multi, v.IncludeAll, v.AllValue)
		}
		vars[v.Name] = v.Definition
	}
	for _, tc := range []struct{ name, def string }{
		{"job", "label_values(pgequiv_connections_accepted_total, job)"},
		{"instance", `label_values(pgequiv_connections_accepted_total{job=~"$job"}, instance)`},
	} {
		if vars[tc.name] != tc.def {
			t.Errorf("variable %s: %q, want %q", tc.name, vars[tc.name], tc.def)
		}
	}
	selector := regexp.MustCompile(`pgequiv_[a-z_]+(\{[^}]*\})?`)
	sum := regexp.MustCompile(`sum(?: by \(([^)]*)\))? \(`)
	n := 0
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			n++
			for _, m := range selector.FindAllStringSubmatch(tg.Expr, -1) {
				if !strings.Contains(m[1], `job=~"$job"`) || !strings.Contains(m[1], `instance=~"$instance"`) {
					t.Errorf("panel %q: %s is not filtered by $job and $instance", p.Title, m[0])
				}
			}
			sums := sum.FindAllStringSubmatch(tg.Expr, -1)
			if len(sums) == 0 || strings.Contains(tg.Expr, "sum(") {
				t.Errorf("panel %q: %s: every aggregation must be a sum by (instance, ...)", p.Title, tg.Expr)
			}
			for _, s := range sums {
				if !strings.Contains(s[1], "instance") {
					t.Errorf("panel %q: %q sums proxies together", p.Title, s[0])
				}
			}
			if !strings.Contains(tg.LegendFormat, "{{instance}}") {
				t.Errorf("panel %q: legend %q does not name the instance", p.Title, tg.LegendFormat)
			}
		}
	}
	if n < 10 {
		t.Fatalf("%d expressions read; the dashboard did not parse as expected", n)
	}
}
