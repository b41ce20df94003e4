package rulefile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// Options say how Run reads and keeps the rule files.
type Options struct {
	Flags  []string // the case flags the system allows
	Update bool     // rewrite plan blocks with the plans the cases print (the caller's -update flag)
}

// Run reads each rule's file under root and hands it to run in a subtest
// named <family>/<name> (or <name>): a file needs at least one expect
// and one expect-not case. With o.Update it then writes back the plans
// the cases recorded with CheckPlan.
func Run(t *testing.T, root string, rules []Rule, o Options, run func(t *testing.T, f *File)) {
	t.Helper()
	for _, r := range rules {
		t.Run(strings.TrimPrefix(r.Family+"/"+r.Name, "/"), func(t *testing.T) {
			f, err := Read(r.File(root), o.Flags)
			if err != nil {
				t.Fatal(err)
			}
			if f.Count(Expect) == 0 || f.Count(ExpectNot) == 0 {
				t.Fatalf("%s: want at least one expect=%s and one expect-not=%s case, have %d and %d",
					f.Path, r.Name, r.Name, f.Count(Expect), f.Count(ExpectNot))
			}
			run(t, f)
			if o.Update {
				if err := f.WriteBack(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// CheckRegistry checks a system's registry against its rule files under
// root: names are unique and hold no ": " (a trace's "name: detail"
// reads the name back), fragment and conditions are given, each rule has
// its file, whose header repeats the registry's, and every file under
// root is a registered rule's.
func CheckRegistry(root string, rules []Rule) []error {
	var errs []error
	files, names := map[string]bool{}, map[string]bool{}
	for _, r := range rules {
		if names[r.Name] {
			errs = append(errs, fmt.Errorf("rule %s registered twice", r.Name))
		}
		names[r.Name], files[r.File(root)] = true, true
		if r.Name == "" || r.Fragment == "" || r.Conditions == "" || strings.Contains(r.Name, ": ") {
			errs = append(errs, fmt.Errorf("rule %+v: name, fragment and conditions are all needed; a name holds no \": \"", r))
			continue
		}
		f, err := readHeader(r.File(root))
		if err != nil {
			errs = append(errs, fmt.Errorf("rule %s: %w", r.Name, err))
			continue
		}
		if f.Fragment != r.Fragment || f.Conditions != r.Conditions {
			errs = append(errs, fmt.Errorf("%s: the header says %q when %q; the registry %q when %q",
				f.Path, f.Fragment, f.Conditions, r.Fragment, r.Conditions))
		}
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".txt") && !files[path] {
			errs = append(errs, fmt.Errorf("%s: no registered rule of this name and family", path))
		}
		return nil
	})
	if err != nil {
		errs = append(errs, fmt.Errorf("rule files: %w", err))
	}
	return errs
}

// readHeader reads just the header of the rule file at path.
func readHeader(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("rule file: %w", err)
	}
	f := &File{Path: path, raw: strings.Split(string(data), "\n")}
	if err := f.parseHeader(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// planMu guards File.updated: cases may run in parallel subtests.
var planMu sync.Mutex

// CheckPlan compares got, the plan case i prints, with the case's plan
// block. With update it records got for WriteBack instead.
func (f *File) CheckPlan(i int, got string, update bool) error {
	c := f.Cases[i]
	got = strings.TrimRight(got, "\n")
	for _, line := range strings.Split(got, "\n") {
		if strings.TrimSpace(line) == "" {
			return fmt.Errorf("%s:%d: %s: a printed plan holds no blank line:\n%s", f.Path, c.Line, c.Name, got)
		}
	}
	if update {
		planMu.Lock()
		defer planMu.Unlock()
		if got != c.Plan {
			if f.updated == nil {
				f.updated = map[int]string{}
			}
			f.updated[i] = got
		}
		return nil
	}
	if got != c.Plan {
		return fmt.Errorf("%s:%d: %s: the plan differs from its golden block (rewrite it with -update):\ngot:\n%s\nwant:\n%s",
			f.Path, c.Line, c.Name, got, c.Plan)
	}
	return nil
}

// WriteBack rewrites the file with the plans CheckPlan recorded, if any.
func (f *File) WriteBack() error {
	planMu.Lock()
	defer planMu.Unlock()
	if len(f.updated) == 0 {
		return nil
	}
	raw := f.raw
	for i := len(f.Cases) - 1; i >= 0; i-- {
		got, ok := f.updated[i]
		if !ok {
			continue
		}
		c := f.Cases[i]
		block := []string{"plan:"}
		for _, line := range strings.Split(got, "\n") {
			block = append(block, indent+line)
		}
		raw = append(raw[:c.planStart:c.planStart], append(block, raw[c.planEnd:]...)...)
	}
	if err := os.WriteFile(f.Path, []byte(strings.Join(raw, "\n")), 0o644); err != nil {
		return fmt.Errorf("rule file: %w", err)
	}
	f.updated = nil
	return nil
}

// Of reads a registry's rules as the rule files see them: the string
// fields Name, Family, Fragment and Conditions of each (a field a type
// lacks reads as empty, which CheckRegistry reports).
func Of[T any](rules []T) []Rule {
	out := make([]Rule, len(rules))
	for i, r := range rules {
		v := reflect.Indirect(reflect.ValueOf(r))
		field := func(name string) string {
			if v.Kind() != reflect.Struct {
				return ""
			}
			if f := v.FieldByName(name); f.IsValid() && f.Kind() == reflect.String {
				return f.String()
			}
			return ""
		}
		out[i] = Rule{Name: field("Name"), Family: field("Family"), Fragment: field("Fragment"), Conditions: field("Conditions")}
	}
	return out
}
