package main

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/config"
)

// TestReloadChanges: a reload names each setting it changed with the old
// and new value, nothing when nothing changed, and never a secret's value.
func TestReloadChanges(t *testing.T) {
	base := func() *config.Config {
		c := config.Default()
		c.Upstream.Address = "127.0.0.1:5432"
		c.Admin.Users = []string{"ops"}
		c.Admin.Auth = "password"
		c.Admin.Password = "old-secret"
		c.Schema.Databases = map[string][]string{"app": {"app.sql"}}
		c.Telemetry.Headers = map[string]string{"authorization": "old-secret"}
		return &c
	}
	for _, tc := range []struct {
		name   string
		change func(c *config.Config)
		want   []string
	}{
		{"nothing", func(*config.Config) {}, nil},
		{"mode and budget", func(c *config.Config) { c.Mode = "annotate"; c.RefuteBudget = 50 * time.Millisecond },
			[]string{"mode: off -> annotate", "refute_budget: 20ms -> 50ms"}},
		{"a value set from empty", func(c *config.Config) { c.Catalog = "refs.yaml" }, []string{`catalog: "" -> refs.yaml`}},
		{"a database added and one removed", func(c *config.Config) { c.Schema.Databases = map[string][]string{"shop": {"shop.sql"}} },
			[]string{`schema.databases.shop: "" -> shop.sql`, "schema.databases.app: app.sql -> (removed)"}},
		{"a secret replaced", func(c *config.Config) { c.Admin.Password = "new-secret" }, []string{"admin.password: changed"}},
		{"a secret cleared", func(c *config.Config) { c.Admin.Password = ""; c.Admin.Auth = "trust" },
			[]string{`admin.auth: password -> trust`, `admin.password: (hidden) -> ""`}},
		{"a telemetry header's token replaced", func(c *config.Config) {
			c.Telemetry.Headers = map[string]string{"authorization": "new-secret"}
		}, []string{"telemetry.headers: changed"}},
		{"database-free password set", func(c *config.Config) { c.Password = "x" }, []string{`password: "" -> (hidden)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next := base()
			tc.change(next)
			got := reloadChanges(base(), next)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			for _, line := range got {
				if strings.Contains(line, "secret") {
					t.Errorf("a secret's value is shown: %q", line)
				}
			}
		})
	}
}
