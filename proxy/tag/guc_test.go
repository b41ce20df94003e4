package tag

import (
	"reflect"
	"testing"
)

func TestParseSetConfig(t *testing.T) {
	ref := func(v string, local bool) SetConfig {
		return SetConfig{Cmd: SessionCommand{Name: SettingReference, Value: v, Tag: "SET"}, Local: local}
	}
	for _, tc := range []struct {
		sql     string
		want    []SetConfig
		dynamic bool
		plain   bool // every call surely runs when the statement succeeds
	}{
		{sql: "SELECT set_config('pgequiv.reference', 'SELECT 1', false)", want: []SetConfig{ref("SELECT 1", false)}, plain: true},
		{sql: "select pg_catalog.set_config('PGEQUIV.REFERENCE', 'x'::text, true)", want: []SetConfig{ref("x", true)}, plain: true},
		{sql: "SELECT set_config('pgequiv.reference', 'a', 'on'), set_config('pgequiv.reference', 'b', false)",
			want: []SetConfig{ref("a", true), ref("b", false)}, plain: true},
		{sql: "SELECT set_config('pgequiv.reference_id', NULL, false)",
			want: []SetConfig{{Cmd: SessionCommand{Name: SettingReferenceID, Reset: true, Tag: "SET"}}}, plain: true},
		{sql: "SELECT set_config('pgequiv.reference', 'x', false) AS a, 1, 'y'::text, set_config('work_mem', '1MB', false)",
			want: []SetConfig{ref("x", false)}, plain: true},
		{sql: "SELECT set_config('work_mem', '1MB', false)", plain: true},
		{sql: "SELECT set_config('pgequiv.reference', $1, false)", dynamic: true},
		{sql: "SELECT set_config(name, 'x', false) FROM t", dynamic: true},
		{sql: "SELECT myschema.set_config('pgequiv.reference', 'x', false)"},
		{sql: "SELECT 'set_config(''pgequiv.reference'', ''x'', false)'", plain: true}, // no call: vacuously
		// Calls that may not run while their statement succeeds.
		{sql: "SELECT set_config('pgequiv.reference', '', false) FROM dogs WHERE false", want: []SetConfig{ref("", false)}},
		{sql: "SELECT CASE WHEN false THEN set_config('pgequiv.reference', '', false) END", want: []SetConfig{ref("", false)}},
		{sql: "SELECT set_config('pgequiv.reference', '', false), generate_series(1, 0)", want: []SetConfig{ref("", false)}},
		{sql: "SELECT set_config('pgequiv.reference', '', false) WHERE false", want: []SetConfig{ref("", false)}},
		{sql: "SELECT set_config('pgequiv.reference', '', false) LIMIT 0", want: []SetConfig{ref("", false)}},
		{sql: "SELECT (SELECT set_config('pgequiv.reference', '', false) WHERE false)", want: []SetConfig{ref("", false)}},
		{sql: "SELECT 1; SELECT set_config('pgequiv.reference', '', false)", want: []SetConfig{ref("", false)}},
		{sql: "SELECT set_config('pgequiv.reference', '', false), 1/0", want: []SetConfig{ref("", false)}},
		{sql: "SELECT set_config('pgequiv.reference', '', false) OVER ()", want: []SetConfig{ref("", false)}},
	} {
		got, dyn, plain := ParseSetConfig(tc.sql)
		if !reflect.DeepEqual(got, tc.want) || dyn != tc.dynamic || plain != tc.plain {
			t.Errorf("%s: got %+v dynamic %v plain %v, want %+v dynamic %v plain %v", tc.sql, got, dyn, plain, tc.want, tc.dynamic, tc.plain)
		}
	}
}

func TestStartupSettings(t *testing.T) {
	for _, tc := range []struct {
		params map[string]string
		want   Session
	}{
		{map[string]string{"options": "-c pgequiv.reference=SELECT\\ 1"}, Session{Reference: "SELECT 1"}},
		{map[string]string{"options": "-cpgequiv.reference_id=abc --pgequiv.reference=x"}, Session{Reference: "x", ReferenceID: "abc"}},
		{map[string]string{"pgequiv.reference": "SELECT 2"}, Session{Reference: "SELECT 2"}},
		{map[string]string{"options": "-c work_mem=1MB"}, Session{}},
		{map[string]string{"options": "-c pgequiv.reference"}, Session{}},
	} {
		if got := StartupSettings(tc.params); got != tc.want {
			t.Errorf("%v: got %+v, want %+v", tc.params, got, tc.want)
		}
	}
}

// TestSettingsTransactions follows PostgreSQL's documented semantics;
// proxy/bypass_session_test.go checks the same against a server.
func TestSettingsTransactions(t *testing.T) {
	set := func(v string) SessionCommand { return SessionCommand{Name: SettingReference, Value: v} }
	reset := SessionCommand{Name: SettingReference, Reset: true}
	type step func(s *Settings)
	for _, tc := range []struct {
		name  string
		steps []step
		want  string
	}{
		{"set outside", []step{func(s *Settings) { s.Apply(set("a"), false) }}, "a"},
		{"local outside has no effect", []step{func(s *Settings) { s.Apply(set("a"), true) }}, "start"},
		{"local ends with commit", []step{func(s *Settings) { s.Begin(); s.Apply(set("a"), true) }, func(s *Settings) { s.End(true) }}, "start"},
		{"set kept by commit", []step{func(s *Settings) { s.Begin(); s.Apply(set("a"), false); s.End(true) }}, "a"},
		{"set undone by rollback", []step{func(s *Settings) { s.Begin(); s.Apply(set("a"), false); s.End(false) }}, "start"},
		{"set then local, commit", []step{func(s *Settings) {
			s.Begin()
			s.Apply(set("a"), false)
			s.Apply(set("b"), true)
			s.End(true)
		}}, "a"},
		{"local then set, commit", []step{func(s *Settings) {
			s.Begin()
			s.Apply(set("b"), true)
			s.Apply(set("a"), false)
			s.End(true)
		}}, "a"},
		{"rollback to savepoint", []step{func(s *Settings) {
			s.Begin()
			s.Apply(set("a"), false)
			s.Savepoint("sp")
			s.Apply(set("b"), false)
			s.RollbackTo("sp")
		}}, "a"},
		{"rollback to savepoint, then commit", []step{func(s *Settings) {
			s.Begin()
			s.Apply(set("a"), false)
			s.Savepoint("sp")
			s.Apply(set("b"), false)
			s.RollbackTo("sp")
			s.End(true)
		}}, "a"},
		{"release keeps", []step{func(s *Settings) {
			s.Begin()
			s.Savepoint("sp")
			s.Apply(set("b"), false)
			s.Release("sp")
			s.End(true)
		}}, "b"},
		{"reset returns to startup", []step{func(s *Settings) { s.Apply(set("a"), false); s.Apply(reset, false) }}, "start"},
		{"reset all in rolled back transaction", []step{func(s *Settings) {
			s.Apply(set("a"), false)
			s.Begin()
			s.Apply(SessionCommand{All: true, Reset: true}, false)
			s.End(false)
		}}, "a"},
	} {
		s := NewSettings(Session{Reference: "start"})
		for _, st := range tc.steps {
			st(&s)
		}
		if s.Cur.Reference != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, s.Cur.Reference, tc.want)
		}
	}
}
