package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A Key is one proxy.yaml key. The table of them (Keys) is the one place
// a key's default, description and checks are written: Default, Validate,
// the environment overrides, SHOW CONFIG (Settings) and docs/proxy.md's
// proxy.yaml block (DocYAML) all read it.
type Key struct {
	// Name is the key's path in the file ("upstream.tls_mode").
	Name string
	// Doc describes the key, as a comment in docs/proxy.md.
	Doc string
	// Env names the environment variable that overrides the key; empty:
	// none.
	Env string
	// Secret keys are shown as (hidden) whenever they are set.
	Secret bool
	// ValuesHidden: SHOW CONFIG shows this map's keys but hides its
	// values (telemetry.headers: authentication tokens).
	ValuesHidden bool

	setDefault func(*Config)
	// show is the value as SHOW CONFIG shows it.
	show func(*Config) string
	// rows replaces show for a map shown one row per entry.
	rows func(*Config) [][2]string
	// raw is a secret's (or hidden values') text, for noticing a change
	// SHOW CONFIG hides.
	raw   func(*Config) string
	check func(*Config) []error
	// envField is the string field Env overrides.
	envField func(*Config) *string
	// docValue is the value docs/proxy.md writes: the default as the file
	// spells it, or an example where the default is empty.
	docValue string
}

// key builds a Key over the field field returns, with default def and
// checks run in order by Validate. A check's error is reported after the
// key's name, unless it names its keys itself (whole).
func key[T any](name string, field func(*Config) *T, def T, doc string, checks ...func(*Config, T) error) Key {
	k := Key{
		Name:       name,
		Doc:        doc,
		setDefault: func(c *Config) { *field(c) = def },
		show:       func(c *Config) string { return showValue(*field(c)) },
		docValue:   docValue(def),
	}
	if len(checks) > 0 {
		k.check = func(c *Config) []error {
			var errs []error
			for _, check := range checks {
				errs = append(errs, keyErrors(name, check(c, *field(c)))...)
			}
			return errs
		}
	}
	if f, ok := any(field).(func(*Config) *string); ok {
		k.envField = f
	}
	return k
}

// keyErrors prefixes err (each of a joined err) with the key's name,
// except where it names its keys itself.
func keyErrors(name string, err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var errs []error
		for _, e := range j.Unwrap() {
			errs = append(errs, keyErrors(name, e)...)
		}
		return errs
	}
	var w wholeError
	if errors.As(err, &w) {
		return []error{err}
	}
	return []error{fmt.Errorf("%s: %w", name, err)}
}

// wholeError is a problem whose text names its keys itself: a list's
// element (accept_assumptions[1]), or a rule over several keys.
type wholeError struct{ msg string }

func (w wholeError) Error() string { return w.msg }

func whole(format string, args ...any) error {
	return wholeError{fmt.Sprintf(format, args...)}
}

// withEnv names the environment variable that overrides a string key.
func (k Key) withEnv(env string) Key {
	k.Env = env
	return k
}

// secret hides a string key's value in SHOW CONFIG.
func (k Key) secret() Key {
	k.Secret = true
	k.raw = func(c *Config) string { return *k.envField(c) }
	return k
}

// shown replaces how SHOW CONFIG shows the key, where its default is
// resolved by the components (refute_budget: 0 means the judge's).
func (k Key) shown(show func(*Config) string) Key {
	k.show = show
	return k
}

// documented replaces the value docs/proxy.md writes for the key.
func (k Key) documented(value string) Key {
	k.docValue = value
	return k
}

// showValue is a value as SHOW CONFIG shows it: sizes in bytes, lists
// comma separated.
func showValue(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case ByteSize:
		return strconv.FormatInt(int64(v), 10)
	case time.Duration:
		return v.String()
	case []string:
		return strings.Join(v, ",")
	case *float64:
		// Unset is empty, as for the other telemetry keys left to their
		// defaults.
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// docValue is a default as proxy.yaml spells it.
func docValue(v any) string {
	switch v := v.(type) {
	case string:
		if v == "" {
			return `""`
		}
		return v
	case ByteSize:
		return sizeText(v)
	case time.Duration:
		return durationText(v)
	case []string:
		if len(v) == 0 {
			return "[]"
		}
		return "[" + strings.Join(v, ", ") + "]"
	case map[string]string, map[string][]string:
		return "{}"
	}
	return showValue(v)
}

// sizeText writes n in the largest binary unit that divides it.
func sizeText(n ByteSize) string {
	for _, u := range []struct {
		suffix string
		mult   ByteSize
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.mult == 0 {
			return strconv.FormatInt(int64(n/u.mult), 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(n), 10)
}

// durationText is d without the zero minutes and seconds Go's String
// spells out (1h, not 1h0m0s).
func durationText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// mapText is a map setting as key=value pairs in key order, each value
// through show.
func mapText(m map[string]string, show func(string) string) string {
	pairs := slices.Sorted(maps.Keys(m))
	for i, k := range pairs {
		pairs[i] = k + "=" + show(m[k])
	}
	return strings.Join(pairs, ",")
}

func hide(s string) string {
	if s == "" {
		return ""
	}
	return "(hidden)"
}

// Keys returns the table of proxy.yaml's keys, in SHOW CONFIG's order.
func Keys() []Key {
	return append([]Key(nil), keys...)
}

// Settings lists every key of c and its value in force, as SHOW CONFIG
// shows them: defaults spelled out, secrets hidden, a map one row per
// entry (or one empty row).
func (c *Config) Settings() [][2]string {
	out := make([][2]string, 0, len(keys))
	for _, k := range keys {
		switch {
		case k.rows != nil:
			out = append(out, k.rows(c)...)
		case k.Secret:
			out = append(out, [2]string{k.Name, hide(k.show(c))})
		default:
			out = append(out, [2]string{k.Name, k.show(c)})
		}
	}
	return out
}

// Secrets lists the values Settings hides, by key: the passwords, then
// the telemetry headers (whose names Settings shows, but not their
// values), so that a reload can say that one changed without showing it.
func (c *Config) Secrets() [][2]string {
	var out [][2]string
	for _, secret := range []bool{true, false} {
		for _, k := range keys {
			if k.raw != nil && k.Secret == secret {
				out = append(out, [2]string{k.Name, k.raw(c)})
			}
		}
	}
	return out
}
