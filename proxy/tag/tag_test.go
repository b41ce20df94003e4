package tag

import (
	"errors"
	"strings"
	"testing"
)

func TestFindComment(t *testing.T) {
	tests := []struct {
		name, sql string
		ok        bool
		want      map[string]string
		err       bool
	}{
		{name: "inline reference", sql: "SELECT 1 /*pgequiv_ref='SELECT%201'*/", ok: true, want: map[string]string{KeyRef: "SELECT 1"}},
		{name: "with traceparent", sql: "SELECT name FROM dogs /*pgequiv_ref_id='top-dogs',traceparent='00-abc-01'*/", ok: true, want: map[string]string{KeyRefID: "top-dogs", "traceparent": "00-abc-01"}},
		{name: "escaped quote", sql: `SELECT 1 /*pgequiv_ref='SELECT%20\'a\''*/`, ok: true, want: map[string]string{KeyRef: "SELECT 'a'"}},
		{name: "comment inside string is data", sql: "SELECT '/*pgequiv_ref=''x''*/'", ok: false},
		{name: "plain comment", sql: "SELECT 1 /* just a note */", ok: false},
		{name: "last comment wins", sql: "/*a='1'*/ SELECT 1 /*b='2'*/", ok: true, want: map[string]string{"b": "2"}},
		{name: "dollar quoted", sql: "SELECT $$ /*pgequiv_ref='x'*/ $$", ok: false},
		{name: "malformed pgequiv comment", sql: "SELECT 1 /*pgequiv_ref='unterminated*/", err: true},
		{name: "bad escape", sql: "SELECT 1 /*pgequiv_ref='%zz'*/", err: true},
		{name: "nested comment", sql: "SELECT 1 /* outer /* inner */ still */", ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, ok, err := FindComment(tc.sql)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if err != nil {
				if !errors.Is(err, ErrMalformed) {
					t.Errorf("error %v is not ErrMalformed", err)
				}
				return
			}
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			for k, v := range tc.want {
				if got, _ := c.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if ok && (tc.sql[c.Start:c.Start+2] != "/*" || tc.sql[c.End-2:c.End] != "*/") {
				t.Errorf("span %d..%d does not delimit the comment", c.Start, c.End)
			}
		})
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	ref := "SELECT name FROM dogs WHERE name = 'O''Brien' /* x */ AND age > 3"
	sql := "SELECT 1 " + Encode(KV{KeyRef, ref}, KV{"traceparent", "00-1-2-01"})
	c, ok, err := FindComment(sql)
	if err != nil || !ok {
		t.Fatalf("ok=%v err=%v for %s", ok, err, sql)
	}
	if got, _ := c.Get(KeyRef); got != ref {
		t.Errorf("round trip: got %q want %q", got, ref)
	}
	if strings.Contains(sql[c.Start+2:c.End-2], "*/") {
		t.Error("encoded comment contains */")
	}
}

func TestParseSessionCommand(t *testing.T) {
	tests := []struct {
		sql  string
		ok   bool
		want SessionCommand
	}{
		{"SET pgequiv.reference = 'SELECT 1'", true, SessionCommand{Name: SettingReference, Value: "SELECT 1", Tag: "SET"}},
		{"set pgequiv.reference_id to 'top'", true, SessionCommand{Name: SettingReferenceID, Value: "top", Tag: "SET"}},
		{"RESET pgequiv.reference", true, SessionCommand{Name: SettingReference, Reset: true, Tag: "RESET"}},
		{"SET pgequiv.reference TO DEFAULT", true, SessionCommand{Name: SettingReference, Reset: true, Tag: "SET"}},
		{"RESET ALL", true, SessionCommand{All: true, Reset: true, Tag: "RESET"}},
		{"SET search_path = public", false, SessionCommand{}},
		{"SELECT 1", false, SessionCommand{}},
		{"SET pgequiv.reference = 3", false, SessionCommand{}},
	}
	for _, tc := range tests {
		got, ok := ParseSessionCommand(tc.sql)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%q: got %+v %v, want %+v %v", tc.sql, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseShow(t *testing.T) {
	tests := []struct {
		sql  string
		want string // "": not a SHOW of a pgequiv setting
	}{
		{"SHOW pgequiv.reference", SettingReference},
		{"  show PGEQUIV.Reference_ID;", SettingReferenceID},
		{`SHOW "pgequiv.reference"`, SettingReference},
		{"SHOW search_path", ""},
		{"SHOW pgequiv.other", ""},
		{"SHOW ALL", ""},
		{"SELECT 'show pgequiv.reference'", ""},
		{"SHOW pgequiv.reference; SHOW pgequiv.reference", ""},
	}
	for _, tc := range tests {
		got, ok := ParseShow(tc.sql)
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("%q: got %q %v, want %q", tc.sql, got, ok, tc.want)
		}
	}
	s := Session{Reference: "SELECT 1"}
	if s.Value(SettingReference) != "SELECT 1" || s.Value(SettingReferenceID) != "" {
		t.Errorf("Value: %+v", s)
	}
}

const catalogYAML = `
references:
  - id: top-dogs
    reference: SELECT name FROM dogs ORDER BY age DESC LIMIT 3
    mode: enforce
  - match: SELECT COUNT(owner_id) FROM dogs WHERE age > 5
    reference: SELECT COUNT(*) FROM dogs WHERE age > 5
`

func TestCatalogAndResolve(t *testing.T) {
	c, err := ParseCatalog([]byte(catalogYAML))
	if err != nil {
		t.Fatal(err)
	}
	var s Session
	// Untagged and not in the catalog.
	if _, ok, err := Resolve("SELECT 1", &s, c); ok || err != nil {
		t.Errorf("untagged: ok=%v err=%v", ok, err)
	}
	// Catalog match by fingerprint: other constants, other layout.
	ref, ok, err := Resolve("select count(owner_id)\nfrom dogs where age > 9", &s, c)
	if err != nil || !ok || ref.Source != FromCatalogMatch || ref.SQL != "SELECT COUNT(*) FROM dogs WHERE age > 5" {
		t.Errorf("fingerprint match: %+v %v %v", ref, ok, err)
	}
	// Session setting beats the catalog; a comment beats the session.
	s.Apply(SessionCommand{Name: SettingReferenceID, Value: "top-dogs"})
	ref, ok, err = Resolve("SELECT name FROM dogs", &s, c)
	if err != nil || !ok || ref.ID != "top-dogs" || ref.Mode != "enforce" || ref.Source != FromSession {
		t.Errorf("session id: %+v %v %v", ref, ok, err)
	}
	ref, _, _ = Resolve("SELECT name FROM dogs /*pgequiv_ref='SELECT%202'*/", &s, c)
	if ref.SQL != "SELECT 2" || ref.Source != FromComment {
		t.Errorf("comment: %+v", ref)
	}
	s.Apply(SessionCommand{All: true})
	if s != (Session{}) {
		t.Errorf("RESET ALL left %+v", s)
	}
	if _, _, err := Resolve("SELECT 1 /*pgequiv_ref_id='nope'*/", &s, c); !errors.Is(err, ErrUnknownID) {
		t.Errorf("unknown id: %v", err)
	}
}

func TestParseCatalogErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"references:\n  - id: a\n", "reference is required"},
		{"references:\n  - id: a\n    reference: SELEC 1\n", "does not parse"},
		{"references:\n  - id: a\n    reference: SELECT 1\n    mode: loud\n", "mode"},
		{"references:\n  - reference: SELECT 1\n", "needs an id"},
		{"references:\n  - id: a\n    reference: SELECT 1\n  - id: a\n    reference: SELECT 2\n", "duplicate id"},
		{"references:\n  - id: a\n    reference: SELECT 1\n    colour: red\n", "colour"},
	} {
		_, err := ParseCatalog([]byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.yaml, err, tc.want)
		}
	}
}

func FuzzFindComment(f *testing.F) {
	for _, s := range []string{"SELECT 1 /*pgequiv_ref='x'*/", "/*a='1',b='2'*/", "'/*", "$a$ /* $a$ */", "/* /* */", `/*k='\'*/`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		c, ok, err := FindComment(sql)
		if ok && err == nil && (c.Start < 0 || c.End > len(sql) || c.Start >= c.End) {
			t.Fatalf("bad span %d..%d", c.Start, c.End)
		}
		_, _ = ParseSessionCommand(sql)
	})
}

func TestStripComment(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT 1 /*pgequiv_ref='SELECT%202'*/", "SELECT 1  "},
		{"SELECT 1 /*traceparent='00-ab-cd-01',pgequiv_ref='x'*/;", "SELECT 1  ;"},
		{"SELECT '/*pgequiv_ref=''x''*/' AS s", "SELECT '/*pgequiv_ref=''x''*/' AS s"}, // inside a literal
		{"SELECT 1 /* a plain comment */", "SELECT 1 /* a plain comment */"},
		{"SELECT 1", "SELECT 1"},
	} {
		if got := StripComment(tc.in); got != tc.want {
			t.Errorf("StripComment(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
