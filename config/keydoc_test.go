package config

import (
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/proxy.md's proxy.yaml block from the key table")

// TestKeyTableCoversConfig: the key table has one row for every key of
// proxy.yaml and none for a key the file does not have.
func TestKeyTableCoversConfig(t *testing.T) {
	paths := map[string]bool{}
	yamlKeys(reflect.TypeFor[Config](), "", paths)
	leaves := map[string]bool{}
	for p := range paths {
		leaves[p] = true
		for q := range paths {
			if strings.HasPrefix(q, p+".") {
				delete(leaves, p) // a section
				break
			}
		}
	}
	seen := map[string]bool{}
	for _, k := range Keys() {
		if seen[k.Name] {
			t.Errorf("key %s is in the table twice", k.Name)
		}
		seen[k.Name] = true
		if !leaves[k.Name] {
			t.Errorf("the table has key %s, which proxy.yaml does not", k.Name)
		}
		if (k.Env != "" || k.Secret) && k.envField == nil {
			t.Errorf("key %s: environment variable or secret without a string field", k.Name)
		}
	}
	for k := range leaves {
		if !seen[k] {
			t.Errorf("proxy.yaml key %s has no row in the key table", k)
		}
	}
}

const (
	docFile     = "../docs/proxy.md"
	docBlockBeg = "## proxy.yaml\n\n```yaml\n"
	docBlockEnd = "```\n"
)

// TestDocYAMLIsCurrent: docs/proxy.md's proxy.yaml block is DocYAML
// (go test ./config -run TestDocYAMLIsCurrent -update rewrites it).
func TestDocYAMLIsCurrent(t *testing.T) {
	data, err := os.ReadFile(docFile)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	before, rest, ok := strings.Cut(doc, docBlockBeg)
	if !ok {
		t.Fatalf("%s: no %q", docFile, docBlockBeg)
	}
	block, after, ok := strings.Cut(rest, docBlockEnd)
	if !ok {
		t.Fatalf("%s: the proxy.yaml block does not end", docFile)
	}
	want := DocYAML()
	if block == want {
		return
	}
	if *update {
		if err := os.WriteFile(docFile, []byte(before+docBlockBeg+want+docBlockEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's proxy.yaml block is stale; rerun with -update. Want:\n%s", docFile, want)
}

// TestDocYAMLLoads: the documented file is a valid proxy.yaml whose
// values are the defaults, but for the examples and the defaults the
// components resolve.
func TestDocYAMLLoads(t *testing.T) {
	c, err := Parse([]byte(DocYAML()))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	d := Default()
	d.Upstream.Address = c.Upstream.Address
	d.Refute, d.Telemetry = c.Refute, c.Telemetry
	if got, want := c.Settings(), d.Settings(); !reflect.DeepEqual(got, want) {
		t.Errorf("documented values differ from the defaults:\n%v\n%v", got, want)
	}
	tel := c.Telemetry
	if !c.RefuteOn() || tel.Protocol != DefaultTelemetryProtocol || tel.Timeout != DefaultTelemetryTimeout ||
		tel.MetricInterval != DefaultTelemetryMetricInterval || tel.QueueSize != DefaultTelemetryQueueSize ||
		tel.ShutdownTimeout != DefaultTelemetryShutdownTimeout || *tel.SamplingRatio != DefaultTelemetrySamplingRatio {
		t.Errorf("documented telemetry defaults %+v", tel)
	}
}
