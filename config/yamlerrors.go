package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// yamlFieldNotFound and yamlCannotUnmarshal are yaml.v3's wording of an
// unknown key and of a value of the wrong kind, which name Go types.
var (
	yamlFieldNotFound   = regexp.MustCompile(`^line (\d+): field (\S+) not found in type (\S+)$`)
	yamlCannotUnmarshal = regexp.MustCompile("^line (\\d+): cannot unmarshal !!(\\w+)(?: `(.*)`)? into (\\S+)$")
)

// friendlyYAMLError rewrites yaml.v3's errors in the file's own words: an
// unknown key is named with its path and the known key it is closest to
// ("line 2: unknown key \"listne\" (did you mean \"listen\"?)"), and a
// value of the wrong kind says what kind is wanted, not the Go type.
func friendlyYAMLError(err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	msgs := make([]string, len(te.Errors))
	for i, m := range te.Errors {
		msgs[i] = friendlyYAMLMessage(m)
	}
	return errors.New(strings.Join(msgs, "; "))
}

func friendlyYAMLMessage(m string) string {
	if g := yamlFieldNotFound.FindStringSubmatch(m); g != nil {
		return unknownKeyMessage(g[1], g[3], g[2])
	}
	if g := yamlCannotUnmarshal.FindStringSubmatch(m); g != nil {
		got := strconv.Quote(g[3])
		switch g[2] {
		case "seq":
			got = "a list"
		case "map":
			got = "a mapping"
		}
		return fmt.Sprintf("line %s: %s is not %s", g[1], got, kindWanted(g[4]))
	}
	return m
}

// unknownKeyMessage names an unknown key of a struct type of this package
// by its path in the file, with the known key nearest to it.
func unknownKeyMessage(line, goType, key string) string {
	prefix, known := yamlKeysOf(goType)
	msg := fmt.Sprintf("line %s: unknown key %q", line, prefix+key)
	if s := closest(key, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", prefix+s)
	}
	return msg
}

// kindWanted says in words what a Go type reads from YAML.
func kindWanted(goType string) string {
	switch {
	case goType == "time.Duration":
		return "a duration (such as 500ms, 10s or 5m)"
	case goType == "bool":
		return "true or false"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"):
		return "a whole number"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "map["), strings.HasPrefix(goType, "config."):
		return "a mapping of keys to values"
	case goType == "string":
		return "a string"
	}
	return "a value of the expected kind"
}

// yamlKeysOf returns where in the file a struct type of this package
// stands (its key path, with a trailing dot; empty at the top) and its
// keys.
func yamlKeysOf(goType string) (prefix string, keys []string) {
	var walk func(t reflect.Type, path string) bool
	walk = func(t reflect.Type, path string) bool {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return false
		}
		if t.String() == goType {
			prefix = path
			for i := 0; i < t.NumField(); i++ {
				if name := yamlName(t.Field(i)); name != "" {
					keys = append(keys, name)
				}
			}
			return true
		}
		for i := 0; i < t.NumField(); i++ {
			if name := yamlName(t.Field(i)); name != "" && walk(t.Field(i).Type, path+name+".") {
				return true
			}
		}
		return false
	}
	walk(reflect.TypeOf(Config{}), "")
	return prefix, keys
}

func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	return name
}

// closest is the key nearest to key by edit distance, if near enough to
// be a typo (at most a third of its letters, and 2, apart).
func closest(key string, keys []string) string {
	best, bestD := "", min(2, max(1, len(key)/3))+1
	for _, k := range keys {
		if d := editDistance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Damerau-Levenshtein distance (optimal string
// alignment: a swap of neighbours counts one), so listne is one from
// listen.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
