package config

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// UpstreamNone is the value of upstream (in the file, or in
// PGEQUIV_UPSTREAM) that runs pgequiv database-free: it answers clients
// itself instead of relaying to a server.
const UpstreamNone = "none"

// UnmarshalYAML accepts either the scalar "none" (database-free mode) or
// the usual mapping. A mapping is checked for unknown keys here, because
// yaml.v3 does not pass strictness on to custom unmarshalers.
func (u *Upstream) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		if n.Value != UpstreamNone {
			return fmt.Errorf("line %d: upstream: %q is neither %q nor a mapping", n.Line, n.Value, UpstreamNone)
		}
		u.None = true
		return nil
	}
	if n.Kind == yaml.MappingNode {
		known := upstreamKeys()
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; !known[k.Value] {
				return errors.New(unknownKeyMessage(strconv.Itoa(k.Line), "config.Upstream", k.Value))
			}
		}
	}
	type plain Upstream // without this method
	return n.Decode((*plain)(u))
}

func upstreamKeys() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeOf(Upstream{})
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			keys[name] = true
		}
	}
	return keys
}
