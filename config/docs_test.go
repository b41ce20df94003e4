package config

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// yamlKeys returns every key path of t's yaml tags ("schema",
// "schema.files", ...).
func yamlKeys(t reflect.Type, prefix string, keys map[string]bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		keys[prefix+name] = true
		ft := f.Type
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice || ft.Kind() == reflect.Map {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && ft.PkgPath() == t.PkgPath() {
			yamlKeys(ft, prefix+name+".", keys)
		}
	}
}

// TestDocsNameRealKeys: the keys docs/database-free.md lists for the
// mode exist in proxy.yaml's schema, and the modes the shipped proxy.yaml
// lists are exactly those Validate accepts.
func TestDocsNameRealKeys(t *testing.T) {
	keys := map[string]bool{}
	yamlKeys(reflect.TypeFor[Config](), "", keys)
	if !keys["schema.files"] || !keys["mode"] {
		t.Fatalf("key walk missed keys: %v", keys)
	}
	doc, err := os.ReadFile("../docs/database-free.md")
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(string(doc), "Package: `proxy/dbfree`; config:")
	if !ok {
		t.Fatal("docs/database-free.md: no config key list")
	}
	list, _, _ = strings.Cut(list, "\n\n")
	names := regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(list, -1)
	if len(names) < 5 {
		t.Fatalf("config key list %q", list)
	}
	for _, m := range names {
		key, _, _ := strings.Cut(m[1], ":")
		if !keys[key] {
			t.Errorf("docs/database-free.md names config key %q, which proxy.yaml does not have", key)
		}
	}

	yml, err := os.ReadFile("../proxy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)tagged queries \(([a-z|#\s]+)\)`).FindSubmatch(yml)
	if m == nil {
		t.Fatal("proxy.yaml: no list of modes")
	}
	modes := strings.Split(strings.NewReplacer("#", "", " ", "", "\n", "").Replace(string(m[1])), "|")
	validate := func(mode string) error {
		c := Default()
		c.Upstream.Address = "127.0.0.1:5432"
		c.Mode = mode
		c.Schema.Files = []string{"schema.sql"}
		return c.Validate()
	}
	for _, mode := range modes {
		if err := validate(mode); err != nil {
			t.Errorf("proxy.yaml lists mode %q: %v", mode, err)
		}
	}
	if validate("observe") == nil {
		t.Error("Validate accepts a mode not listed")
	}
	if len(modes) != 4 {
		t.Errorf("proxy.yaml lists modes %q, want off, annotate, log, enforce", modes)
	}
}
