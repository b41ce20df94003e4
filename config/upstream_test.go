package config

import (
	"strings"
	"testing"
)

func TestUpstreamNone(t *testing.T) {
	c, err := Load("testdata/good/database-free.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Upstream.None || c.Upstream.Address != "" || c.Password != "secret" || len(c.Schema.Files) != 1 {
		t.Fatalf("database-free config: %+v", c)
	}
	// The environment can switch either way.
	env := func(vals map[string]string) func(string) string { return func(k string) string { return vals[k] } }
	c, err = Load("testdata/good/database-free.yaml", env(map[string]string{EnvUpstream: "db:5432"}))
	if err != nil || c.Upstream.None || c.Upstream.Address != "db:5432" {
		t.Fatalf("PGEQUIV_UPSTREAM over upstream: none: %+v, %v", c, err)
	}
	c, err = Load("testdata/good/minimal.yaml", env(map[string]string{EnvUpstream: UpstreamNone}))
	if err != nil || !c.Upstream.None {
		t.Fatalf("PGEQUIV_UPSTREAM=none: %+v, %v", c, err)
	}
	// Strictness survives the custom unmarshaler.
	if _, err := Parse([]byte("upstream:\n  address: a:1\n  bogus: 1\n")); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Fatalf("unknown nested key: %v", err)
	}
}

func TestShippedProxyYAML(t *testing.T) {
	c, err := Load("../proxy.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Upstream.None || c.Listen != DefaultListen || len(c.Schema.Files) != 0 || c.Password != "" {
		t.Fatalf("shipped proxy.yaml: %+v", c)
	}
	if c.Catalog != "" {
		t.Fatalf("shipped proxy.yaml names a catalog: %q", c.Catalog)
	}
}
