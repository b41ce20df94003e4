package dataset

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/internal/shareddata"
)

func TestReadPairsSharedFile(t *testing.T) {
	pairs, err := ReadPairsFile(shareddata.Path(t, "data/spider_pair_dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 1644 {
		t.Fatalf("read %d pairs, want 1644", len(pairs))
	}
	labels := map[int]int{}
	dbs := map[string]bool{}
	sources := map[string]int{}
	for _, p := range pairs {
		labels[p.Label]++
		dbs[p.DB] = true
		sources[p.Source]++
		if p.Dialect != "sqlite" {
			t.Fatalf("pair %s: dialect %q, want sqlite", p.ID, p.Dialect)
		}
	}
	if labels[0] != 904 || labels[1] != 740 {
		t.Errorf("labels = %v, want 904 zeros and 740 ones", labels)
	}
	if len(dbs) != 20 {
		t.Errorf("%d databases, want 20", len(dbs))
	}
	if sources["gpt3.5"] != 703 || sources["gpt4"] != 496 || sources["text2sql"] != 445 {
		t.Errorf("sources = %v", sources)
	}
	first, last := pairs[0], pairs[len(pairs)-1]
	if first.ID != "spider_pair_dev-0" || first.DB != "wta_1" || first.Label != 0 || first.Line != 1 ||
		!strings.HasPrefix(first.Candidate, "SELECT p.first_name, p.last_name, r.ranking\nFROM players p") {
		t.Errorf("first pair = %+v", first)
	}
	if last.ID != "spider_pair_dev-1643" || last.Line != 1644 {
		t.Errorf("last pair is %q on line %d", last.ID, last.Line)
	}
}

func TestReadPairsLenient(t *testing.T) {
	// Extra fields are ignored, blank lines skipped, CRLF endings and a
	// missing final newline accepted; source and dialect are optional.
	in := "{\"id\":\"a\",\"db\":\"d\",\"reference\":\"SELECT 1\",\"candidate\":\"SELECT 1\",\"label\":1,\"extra\":{\"x\":[1,2]},\"source\":\"s\",\"dialect\":\"sqlite\"}\r\n" +
		"\n   \n" +
		`{"id":"b","db":"d","reference":"SELECT 1","candidate":"SELECT 2","label":0}`
	pairs, err := ReadPairs(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Pair{
		{ID: "a", DB: "d", Reference: "SELECT 1", Candidate: "SELECT 1", Label: 1, Source: "s", Dialect: "sqlite", Line: 1},
		{ID: "b", DB: "d", Reference: "SELECT 1", Candidate: "SELECT 2", Label: 0, Line: 4},
	}
	if len(pairs) != len(want) {
		t.Fatalf("pairs = %+v, want %+v", pairs, want)
	}
	for i := range want {
		if pairs[i] != want[i] {
			t.Errorf("pair %d = %+v, want %+v", i, pairs[i], want[i])
		}
	}
	if pairs, err := ReadPairs(strings.NewReader("")); err != nil || len(pairs) != 0 {
		t.Errorf("empty input: %d pairs, error %v", len(pairs), err)
	}
}

func TestReadPairsBadInput(t *testing.T) {
	const good = `{"id":"ok","db":"d","reference":"SELECT 1","candidate":"SELECT 1","label":1}` + "\n"
	row := func(fields string) string { return "{" + fields + "}\n" }
	const base = `"db":"d","reference":"SELECT 1","candidate":"SELECT 1"`
	tests := []struct {
		name  string
		in    string
		line  int
		field string
		want  error // nil: only the line and field are checked
	}{
		{"syntax", good + `{"id":"x",` + "\n", 2, "", nil},
		{"two objects on a line", good + strings.TrimSuffix(row(`"id":"x",`+base+`,"label":0`), "\n") + row(`"id":"y",`+base+`,"label":0`), 2, "", nil},
		{"truncated object", good + good[:20] + "\n", 2, "", nil},
		{"label 2", good + row(`"id":"x",`+base+`,"label":2`), 2, "label", ErrInvalidValue},
		{"label string", good + row(`"id":"x",`+base+`,"label":"1"`), 2, "label", ErrInvalidValue},
		{"label fraction", good + row(`"id":"x",`+base+`,"label":0.5`), 2, "label", ErrInvalidValue},
		{"label bool", good + row(`"id":"x",`+base+`,"label":true`), 2, "label", ErrInvalidValue},
		{"label missing", good + row(`"id":"x",`+base), 2, "label", ErrMissingField},
		{"label null", good + row(`"id":"x",`+base+`,"label":null`), 2, "label", ErrMissingField},
		{"id missing", good + "\n" + row(base+`,"label":1`), 3, "id", ErrMissingField},
		{"id number", row(`"id":7,` + base + `,"label":1`), 1, "id", ErrInvalidValue},
		{"id duplicate", good + "\n" + good, 3, "id", ErrDuplicateID},
		{"candidate missing", row(`"id":"x","db":"d","reference":"SELECT 1","label":1`), 1, "candidate", ErrMissingField},
		{"reference empty", row(`"id":"x","db":"d","reference":"","candidate":"SELECT 1","label":1`), 1, "reference", ErrInvalidValue},
		{"db missing", row(`"id":"x","reference":"SELECT 1","candidate":"SELECT 1","label":1`), 1, "db", ErrMissingField},
		{"not an object", "[1, 2]\n", 1, "", nil},
		{"source not a string", row(`"id":"x",` + base + `,"label":1,"source":3`), 1, "source", ErrInvalidValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadPairs(strings.NewReader(tt.in))
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("error = %v, want *Error", err)
			}
			if e.Line != tt.line || e.Field != tt.field {
				t.Errorf("error at line %d field %q (%v), want line %d field %q", e.Line, e.Field, err, tt.line, tt.field)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestReadPairsSyntaxErrorUnwraps(t *testing.T) {
	_, err := ReadPairs(strings.NewReader("{\n"))
	if _, ok := errors.AsType[*json.SyntaxError](err); !ok {
		t.Errorf("error = %v, want one wrapping *json.SyntaxError", err)
	}
}

func TestErrorMessage(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Line: 3, Field: "label", Err: ErrMissingField}, `line 3: field "label": missing required field`},
		{&Error{Line: 9, Err: ErrInvalidValue}, `line 9: invalid value`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadPairsFile(filepath.Join(dir, "absent.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent pairs file: error = %v, want fs.ErrNotExist", err)
	}
	if _, err := ReadCasesFile(filepath.Join(dir, "absent.yaml")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent case file: error = %v, want fs.ErrNotExist", err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"id":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadPairsFile(bad)
	if e, ok := errors.AsType[*Error](err); !ok || e.Line != 1 || !strings.HasPrefix(err.Error(), bad+": line 1: ") {
		t.Errorf("bad pairs file: error = %v, want a *Error at line 1 prefixed with the path", err)
	}
}
