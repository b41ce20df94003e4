// Package rulefile reads and checks the rule files of the three rule
// systems (the prover's proof steps, the normalizer's rewrites, the ESM+
// rules): one executed testdata file per registered rule, so that every
// rule a trace names has its own near misses. It is a leaf: the systems
// pass their registries in as Rule values and run the cases themselves
// through closures.
//
// A rule's file is testdata/<family>/<name>.txt (testdata/<name>.txt for
// a rule of no family). Its first two lines repeat the registry:
//
//	# <name>: <fragment>        the rule's name and before ⇒ after
//	# when: <conditions>        its side conditions
//
// Blocks follow, separated by blank lines; a line that starts with '#'
// is a comment anywhere else:
//
//	ddl                         the schema: the lines below, or
//	schema <path>               a shared schema file (the caller reads it)
//
//	data                        optionally, statements the caller runs on
//	INSERT INTO ...             a real engine after the schema (rows for
//	                            the cases to tell apart)
//
//	expect=<rule> [flags]       a pair the rule relates: the system
//	a: SELECT ...               applies it and a and b compare equal
//	b: SELECT ...
//	plan:                       optionally, the golden printed plan the
//	  <indented lines>          case produces (rewritten with -update)
//
//	expect-not=<rule> [flags]   a near miss: the rule must not apply;
//	a: ...                      a comment says why
//	b: ...
//
// b may be left out where the system's cases rewrite one query (the
// normalizer's: a alone must show the rule firing or not); the prover's
// need both. A line of a or b that starts with whitespace continues the
// one above.
// Each case names the file's rule. The flags are the system's own (the
// prover's are sqlite, as-given, unseen, equal); a flag the caller does
// not allow is an error.
package rulefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Kinds of case.
const (
	Expect    = "expect"
	ExpectNot = "expect-not"
)

// Rule is one registered rule as its system declares it.
type Rule struct {
	Name       string // unique, kebab-case: what a trace prints
	Family     string // the testdata folder; empty for a system of one folder
	Fragment   string // before ⇒ after, one line
	Conditions string // the side conditions, one line
}

// File is the path of r's rule file under root.
func (r Rule) File(root string) string {
	return filepath.Join(root, r.Family, r.Name+".txt")
}

// Case is one pair of a rule file.
type Case struct {
	Kind  string // Expect or ExpectNot
	Rule  string // the rule it names
	Name  string // its kind and ordinal among the file's cases of that kind: "expect-2"
	Flags []string
	A, B  string
	Line  int // the line of its expect= head, from 1
	// Plan is the golden plan block's text (its indentation removed), ""
	// where the case has none.
	Plan string
	// planStart and planEnd are the raw lines the plan block spans (its
	// "plan:" line included); equal where there is none, at the line
	// after the case, where -update inserts one.
	planStart, planEnd int
}

// Has says whether the case carries flag.
func (c Case) Has(flag string) bool { return slices.Contains(c.Flags, flag) }

// File is one parsed rule file.
type File struct {
	Path       string
	Name       string // from the header
	Fragment   string
	Conditions string
	DDL        string // the ddl block, "" where a schema block names a file
	Schema     string // the schema block's path, if any
	Data       string // the data block, if any
	Cases      []Case

	raw     []string // the file's lines, for rewriting plan blocks
	updated map[int]string
}

// Count returns how many cases of kind the file has.
func (f *File) Count(kind string) int {
	n := 0
	for _, c := range f.Cases {
		if c.Kind == kind {
			n++
		}
	}
	return n
}

// Read parses the rule file at path, allowing the case flags flags.
func Read(path string, flags []string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("rule file: %w", err)
	}
	return Parse(path, string(data), flags)
}

// Parse parses a rule file's text; path names it in errors and gives the
// rule's name (the file's base name) that the header and every case must
// name.
func Parse(path, text string, flags []string) (*File, error) {
	f := &File{Path: path, raw: strings.Split(text, "\n")}
	if err := f.parseHeader(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, b := range blocks(f.raw) {
		if err := f.parseBlock(b, flags); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, b.lines[0]+1, err)
		}
	}
	if f.DDL == "" && f.Schema == "" {
		return nil, fmt.Errorf("%s: no ddl or schema block", path)
	}
	return f, nil
}

// parseHeader reads the first two lines.
func (f *File) parseHeader() error {
	want := strings.TrimSuffix(filepath.Base(f.Path), ".txt")
	if len(f.raw) < 2 {
		return errors.New("no header: want \"# <name>: <fragment>\" and \"# when: <conditions>\"")
	}
	name, frag, ok := strings.Cut(strings.TrimPrefix(f.raw[0], "# "), ": ")
	if !strings.HasPrefix(f.raw[0], "# ") || !ok || name != want {
		return fmt.Errorf("line 1 is %q, want \"# %s: <fragment>\"", f.raw[0], want)
	}
	cond, ok := strings.CutPrefix(f.raw[1], "# when: ")
	if !ok {
		return fmt.Errorf("line 2 is %q, want \"# when: <conditions>\"", f.raw[1])
	}
	f.Name, f.Fragment, f.Conditions = name, strings.TrimSpace(frag), strings.TrimSpace(cond)
	return nil
}

// block is a run of non-blank, non-comment lines, by index into raw.
type block struct {
	lines []int
	text  []string
}

// blocks splits raw into blocks at blank lines, leaving comments out.
func blocks(raw []string) []block {
	var out []block
	var cur block
	for i, line := range raw {
		switch {
		case strings.HasPrefix(line, "#"):
		case strings.TrimSpace(line) == "":
			if cur.lines != nil {
				out = append(out, cur)
			}
			cur = block{}
		default:
			cur.lines = append(cur.lines, i)
			cur.text = append(cur.text, line)
		}
	}
	if cur.lines != nil {
		out = append(out, cur)
	}
	return out
}

func (f *File) parseBlock(b block, flags []string) error {
	head := strings.Fields(b.text[0])
	switch {
	case head[0] == "ddl":
		f.DDL = strings.Join(b.text[1:], "\n")
	case head[0] == "schema" && len(head) == 2:
		f.Schema = head[1]
	case head[0] == "data":
		f.Data = strings.Join(b.text[1:], "\n")
	case strings.HasPrefix(head[0], "expect"):
		c, err := f.parseCase(b, flags)
		if err != nil {
			return err
		}
		c.Name = fmt.Sprintf("%s-%d", c.Kind, f.Count(c.Kind)+1)
		f.Cases = append(f.Cases, c)
	default:
		return fmt.Errorf("unknown block %q", b.text[0])
	}
	return nil
}

// parseCase reads a case block about the file's rule.
func (f *File) parseCase(b block, flags []string) (Case, error) {
	head := strings.Fields(b.text[0])
	kind, name, _ := strings.Cut(head[0], "=")
	if kind != Expect && kind != ExpectNot {
		return Case{}, fmt.Errorf("unknown %q", head[0])
	}
	if name != f.Name {
		return Case{}, fmt.Errorf("%s names %q, not the file's rule %q", kind, name, f.Name)
	}
	c := Case{Kind: kind, Rule: name, Line: b.lines[0] + 1}
	for _, flag := range head[1:] {
		if !slices.Contains(flags, flag) {
			return Case{}, fmt.Errorf("unknown flag %q", flag)
		}
		c.Flags = append(c.Flags, flag)
	}
	var last *string
	var plan []string
	c.planStart, c.planEnd = b.lines[len(b.lines)-1]+1, b.lines[len(b.lines)-1]+1
	for i, line := range b.text[1:] {
		switch {
		case plan != nil && (line[0] == ' ' || line[0] == '\t'):
			plan = append(plan, unindent(line))
		case plan != nil:
			return Case{}, fmt.Errorf("unexpected line %q after the plan block", line)
		case strings.HasPrefix(line, "a:"):
			c.A, last = strings.TrimSpace(line[2:]), &c.A
		case strings.HasPrefix(line, "b:"):
			c.B, last = strings.TrimSpace(line[2:]), &c.B
		case strings.TrimSpace(line) == "plan:":
			plan, c.planStart = []string{}, b.lines[i+1]
		case last != nil && (line[0] == ' ' || line[0] == '\t'):
			*last += " " + strings.TrimSpace(line)
		default:
			return Case{}, fmt.Errorf("unexpected line %q", line)
		}
	}
	if c.A == "" {
		return Case{}, errors.New("a case needs a:")
	}
	c.Plan = strings.Join(plan, "\n")
	return c, nil
}

// indent is what a plan block's lines start with.
const indent = "  "

func unindent(line string) string {
	if s, ok := strings.CutPrefix(line, indent); ok {
		return s
	}
	return strings.TrimPrefix(line, "\t")
}
