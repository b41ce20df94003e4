package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/config"
)

// yamlKeyPaths lists every proxy.yaml key of t ("schema.files", ...); a
// section (a struct) contributes its keys, not its own name.
func yamlKeyPaths(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && ft.PkgPath() == t.PkgPath() {
			out = append(out, yamlKeyPaths(ft, prefix+name+".")...)
			continue
		}
		out = append(out, prefix+name)
	}
	return out
}

// TestShowConfigListsEveryKey (issue 37, item 6): SHOW CONFIG has a row
// for every proxy.yaml key (a map key such as schema.databases one per
// entry, or one empty row), so a key added to config.Config without a row
// fails here; and no secret's value is shown.
func TestShowConfigListsEveryKey(t *testing.T) {
	keys := yamlKeyPaths(reflect.TypeFor[config.Config](), "")
	if len(keys) < 60 {
		t.Fatalf("walked %d keys; the walk is broken", len(keys))
	}
	const secret = "s3cr3t-value"
	withDBs := config.Default()
	withDBs.Schema.Databases = map[string][]string{"app": {"app.sql"}}
	withDBs.Password = secret
	withDBs.Admin.Password = secret
	withDBs.Schema.Introspect.Password = secret
	withDBs.Telemetry.Headers = map[string]string{"authorization": "Bearer " + secret}
	for name, c := range map[string]config.Config{"defaults": config.Default(), "with databases and secrets": withDBs} {
		t.Run(name, func(t *testing.T) {
			rows := configSettings(&c)
			for _, k := range keys {
				found := false
				for _, kv := range rows {
					if kv[0] == k || strings.HasPrefix(kv[0], k+".") {
						found = true
						break
					}
				}
				if !found {
					t.Errorf("SHOW CONFIG has no row for %s", k)
				}
			}
			seen := map[string]bool{}
			for _, kv := range rows {
				if seen[kv[0]] {
					t.Errorf("SHOW CONFIG lists %s twice", kv[0])
				}
				seen[kv[0]] = true
				if strings.Contains(kv[1], secret) {
					t.Errorf("SHOW CONFIG shows a secret: %v", kv)
				}
			}
		})
	}
}
