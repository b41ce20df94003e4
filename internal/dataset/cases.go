package dataset

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// Tier says how much a case matters.
type Tier string

const (
	TierCore Tier = "core" // the judge must pass it
	TierHard Tier = "hard" // a stretch goal
)

// Expect is the verdict a case expects from the judge.
type Expect string

const (
	// Equivalent: same result on every database of the schema.
	Equivalent Expect = "equivalent"
	// EquivalentUnderAssumptions: same result only if the case's
	// Assumptions hold; the verdict must name them.
	EquivalentUnderAssumptions Expect = "equivalent_under_assumptions"
	// NotEquivalent: some database of the schema tells them apart.
	NotEquivalent Expect = "not_equivalent"
)

// CaseFile is a parsed case file: a schema and the cases over it.
type CaseFile struct {
	Schema string // DDL of the tables the cases query
	Cases  []Case
}

// Case is one curated equivalence case.
type Case struct {
	ID        string
	Tier      Tier
	Reference string
	Candidate string
	Expect    Expect
	// Policy overrides judge options for this case, as written: values are
	// the YAML scalars' text ("ignore", "false"). Nil when absent.
	Policy map[string]string
	// Assumptions are present exactly when Expect is
	// EquivalentUnderAssumptions.
	Assumptions []string
	Line        int // 1-based line where the case starts
}

// ReadCases reads a case file. Unknown keys, missing or empty required
// fields, unknown tier or expect values, duplicate ids and assumptions that
// do not match the expected verdict are errors.
func ReadCases(r io.Reader) (*CaseFile, error) {
	dec := yaml.NewDecoder(r)
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{Line: 1, Err: fmt.Errorf("%w: empty case file", ErrMissingField)}
		}
		return nil, fmt.Errorf("parsing case file: %w", err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, fmt.Errorf("parsing case file: %w", err)
	default:
		return nil, &Error{Line: extra.Line, Err: fmt.Errorf("%w: a second YAML document", ErrInvalidValue)}
	}
	top := &doc
	if top.Kind == yaml.DocumentNode && len(top.Content) == 1 {
		top = resolve(top.Content[0])
	}
	if top.Kind != yaml.MappingNode {
		return nil, &Error{Line: top.Line, Err: fmt.Errorf("%w: the top level must be a mapping", ErrInvalidValue)}
	}
	var cf CaseFile
	var casesNode *yaml.Node
	err := eachKey(top, func(key string, k, v *yaml.Node) error {
		switch key {
		case "schema":
			s, err := text(key, v)
			cf.Schema = s
			return err
		case "cases":
			casesNode = v
			return nil
		}
		return &Error{Line: k.Line, Field: key, Err: ErrUnknownKey}
	})
	if err != nil {
		return nil, err
	}
	if cf.Schema == "" {
		return nil, &Error{Line: top.Line, Field: "schema", Err: ErrMissingField}
	}
	if casesNode == nil {
		return nil, &Error{Line: top.Line, Field: "cases", Err: ErrMissingField}
	}
	if casesNode.Kind != yaml.SequenceNode {
		return nil, &Error{Line: casesNode.Line, Field: "cases", Err: fmt.Errorf("%w: want a list", ErrInvalidValue)}
	}
	seen := make(map[string]int) // id → line
	for _, n := range casesNode.Content {
		c, err := parseCase(resolve(n))
		if err != nil {
			return nil, err
		}
		if first, dup := seen[c.ID]; dup {
			return nil, &Error{Line: c.Line, Field: "id", Err: fmt.Errorf("%w %q, first on line %d", ErrDuplicateID, c.ID, first)}
		}
		seen[c.ID] = c.Line
		cf.Cases = append(cf.Cases, c)
	}
	return &cf, nil
}

// ReadCasesFile reads the case file at path.
func ReadCasesFile(path string) (*CaseFile, error) { return readFile(path, ReadCases) }

func parseCase(n *yaml.Node) (Case, error) {
	c := Case{Line: n.Line}
	if n.Kind != yaml.MappingNode {
		return c, &Error{Line: n.Line, Err: fmt.Errorf("%w: a case must be a mapping", ErrInvalidValue)}
	}
	err := eachKey(n, func(key string, k, v *yaml.Node) error {
		var err error
		switch key {
		case "id":
			c.ID, err = text(key, v)
		case "reference":
			c.Reference, err = text(key, v)
		case "candidate":
			c.Candidate, err = text(key, v)
		case "tier":
			var s string
			s, err = text(key, v)
			c.Tier = Tier(s)
			if err == nil && c.Tier != TierCore && c.Tier != TierHard {
				err = &Error{Line: v.Line, Field: key, Err: fmt.Errorf("%w %q, want %q or %q", ErrInvalidValue, s, TierCore, TierHard)}
			}
		case "expect":
			var s string
			s, err = text(key, v)
			c.Expect = Expect(s)
			switch c.Expect {
			case Equivalent, EquivalentUnderAssumptions, NotEquivalent:
			default:
				if err == nil {
					err = &Error{Line: v.Line, Field: key, Err: fmt.Errorf("%w %q, want %q, %q or %q", ErrInvalidValue, s, Equivalent, EquivalentUnderAssumptions, NotEquivalent)}
				}
			}
		case "policy":
			c.Policy, err = policy(v)
		case "assumptions":
			c.Assumptions, err = textList(key, v)
		default:
			err = &Error{Line: k.Line, Field: key, Err: ErrUnknownKey}
		}
		return err
	})
	if err != nil {
		return c, err
	}
	for _, f := range []struct{ name, val string }{
		{"id", c.ID}, {"tier", string(c.Tier)}, {"reference", c.Reference},
		{"candidate", c.Candidate}, {"expect", string(c.Expect)},
	} {
		if f.val == "" {
			return c, &Error{Line: c.Line, Field: f.name, Err: fmt.Errorf("%w in case %q", ErrMissingField, c.ID)}
		}
	}
	switch {
	case c.Expect == EquivalentUnderAssumptions && len(c.Assumptions) == 0:
		return c, &Error{Line: c.Line, Field: "assumptions", Err: fmt.Errorf("%w: case %q expects %s", ErrMissingField, c.ID, c.Expect)}
	case c.Expect != EquivalentUnderAssumptions && c.Assumptions != nil:
		return c, &Error{Line: c.Line, Field: "assumptions", Err: fmt.Errorf("%w: case %q expects %s, which takes no assumptions", ErrInvalidValue, c.ID, c.Expect)}
	}
	return c, nil
}

// eachKey calls fn for each key of mapping m in order, rejecting keys that
// are not plain scalars or that repeat.
func eachKey(m *yaml.Node, fn func(key string, k, v *yaml.Node) error) error {
	seen := make(map[string]bool, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := resolve(m.Content[i]), resolve(m.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return &Error{Line: k.Line, Err: fmt.Errorf("%w: a key must be a scalar", ErrInvalidValue)}
		}
		if seen[k.Value] {
			return &Error{Line: k.Line, Field: k.Value, Err: ErrDuplicateKey}
		}
		seen[k.Value] = true
		if err := fn(k.Value, k, v); err != nil {
			return err
		}
	}
	return nil
}

// text returns the value of a scalar that must be present and non-blank.
func text(key string, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", &Error{Line: v.Line, Field: key, Err: fmt.Errorf("%w: want a string", ErrInvalidValue)}
	}
	if v.Tag == "!!null" || strings.TrimSpace(v.Value) == "" {
		return "", &Error{Line: v.Line, Field: key, Err: fmt.Errorf("%w: empty", ErrInvalidValue)}
	}
	return v.Value, nil
}

func textList(key string, v *yaml.Node) ([]string, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, &Error{Line: v.Line, Field: key, Err: fmt.Errorf("%w: want a list", ErrInvalidValue)}
	}
	out := make([]string, 0, len(v.Content))
	for _, n := range v.Content {
		s, err := text(key, resolve(n))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func policy(v *yaml.Node) (map[string]string, error) {
	if v.Kind != yaml.MappingNode {
		return nil, &Error{Line: v.Line, Field: "policy", Err: fmt.Errorf("%w: want a mapping", ErrInvalidValue)}
	}
	p := make(map[string]string, len(v.Content)/2)
	err := eachKey(v, func(key string, _, val *yaml.Node) error {
		s, err := text("policy."+key, val)
		p[key] = s
		return err
	})
	return p, err
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}
