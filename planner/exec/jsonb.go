package exec

import (
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// jsonb values (KJSON) hold the text PostgreSQL prints for them
// (jsonb_out): object keys shortest first, then bytewise, the last of
// duplicate keys kept, ", " and ": " between items, numbers as numeric
// prints them. The executor reads that text again where an operator
// needs the document. Modelled: input of documents whose strings have
// no \u escape and whose numbers have no exponent (others cannot
// execute: PostgreSQL rejects some \u escapes the Go reader accepts, and
// normalises exponents), output, grouping (structural: 1.0 and 1 are one
// number), -> and ->> with a key or an index, @> and <@ between jsonb
// documents, and ? on an object or array. Ordering, = and <> between
// jsonb values, and json (not jsonb) cannot execute.

// jnode is a parsed jsonb document.
type jnode struct {
	kind byte // 'o' object, 'a' array, 's' string, 'n' number, 't' true, 'f' false, 'z' null
	str  string
	num  *big.Rat // 'n'; str holds its text
	keys []string // 'o', in jsonb order
	vals []*jnode // 'o' values by keys; 'a' elements
}

// ParseJSONB reads jsonb input as PostgreSQL's jsonb_in would, for the
// documents modelled.
func ParseJSONB(s string) (Value, error) {
	n, err := parseJSON(s)
	if err != nil {
		return Null, err
	}
	return Value{K: KJSON, S: n.text()}, nil
}

func parseJSON(s string) (*jnode, error) {
	p := &jparser{s: s}
	p.space()
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, cannot("jsonb input %q", s)
	}
	return n, nil
}

type jparser struct {
	s string
	i int
}

func (p *jparser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\n\r", p.s[p.i]) >= 0 {
		p.i++
	}
}

var jsonNumber = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?`)

func (p *jparser) value(depth int) (*jnode, error) {
	if depth > 64 || p.i >= len(p.s) {
		return nil, cannot("jsonb input %q", p.s)
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		n := &jnode{kind: 'o'}
		byKey := map[string]*jnode{}
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return n, nil
		}
		for {
			p.space()
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, cannot("jsonb input %q", p.s)
			}
			p.i++
			p.space()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			byKey[k] = v // the last of duplicate keys
			p.space()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				break
			}
			return nil, cannot("jsonb input %q", p.s)
		}
		for k := range byKey {
			n.keys = append(n.keys, k)
		}
		sort.Slice(n.keys, func(i, j int) bool {
			a, b := n.keys[i], n.keys[j]
			if len(a) != len(b) {
				return len(a) < len(b)
			}
			return a < b
		})
		for _, k := range n.keys {
			n.vals = append(n.vals, byKey[k])
		}
		return n, nil
	case c == '[':
		p.i++
		n := &jnode{kind: 'a'}
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return n, nil
		}
		for {
			p.space()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, v)
			p.space()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == ']' {
				p.i++
				return n, nil
			}
			return nil, cannot("jsonb input %q", p.s)
		}
	case c == '"':
		s, err := p.str()
		return &jnode{kind: 's', str: s}, err
	case strings.HasPrefix(p.s[p.i:], "true"):
		p.i += 4
		return &jnode{kind: 't'}, nil
	case strings.HasPrefix(p.s[p.i:], "false"):
		p.i += 5
		return &jnode{kind: 'f'}, nil
	case strings.HasPrefix(p.s[p.i:], "null"):
		p.i += 4
		return &jnode{kind: 'z'}, nil
	}
	m := jsonNumber.FindString(p.s[p.i:])
	if m == "" {
		return nil, cannot("jsonb input %q", p.s)
	}
	p.i += len(m)
	if p.i < len(p.s) && strings.IndexByte("eE.0123456789", p.s[p.i]) >= 0 {
		return nil, cannot("jsonb number in %q", p.s)
	}
	r, _ := new(big.Rat).SetString(m)
	if r.Sign() == 0 {
		m = strings.TrimPrefix(m, "-") // numeric prints -0 as 0
	}
	return &jnode{kind: 'n', str: m, num: r}, nil
}

// str reads a string with the escapes \" \\ \/ \b \f \n \r \t; \u
// escapes cannot execute.
func (p *jparser) str() (string, error) {
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return "", cannot("jsonb input %q", p.s)
	}
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c < 0x20:
			return "", cannot("jsonb input %q", p.s)
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", cannot("jsonb input %q", p.s)
			}
			e := p.s[p.i+1]
			r, ok := map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[e]
			if !ok {
				return "", cannot("jsonb string escape \\%c", e)
			}
			b.WriteByte(r)
			p.i += 2
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", cannot("jsonb input %q", p.s)
}

// text writes n as jsonb_out does.
func (n *jnode) text() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *jnode) write(b *strings.Builder) {
	switch n.kind {
	case 'o':
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSONString(b, k)
			b.WriteString(": ")
			n.vals[i].write(b)
		}
		b.WriteByte('}')
	case 'a':
		b.WriteByte('[')
		for i, v := range n.vals {
			if i > 0 {
				b.WriteString(", ")
			}
			v.write(b)
		}
		b.WriteByte(']')
	case 's':
		writeJSONString(b, n.str)
	case 'n':
		b.WriteString(n.str)
	case 't':
		b.WriteString("true")
	case 'f':
		b.WriteString("false")
	default:
		b.WriteString("null")
	}
}

// writeJSONString is escape_json: ", \ and control characters escaped.
func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00` + strconv.FormatInt(int64(r)>>4, 16) + strconv.FormatInt(int64(r)&15, 16))
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// key writes n so that two documents jsonb's = finds equal write the
// same: numbers by value.
func (n *jnode) key(b *strings.Builder) {
	switch n.kind {
	case 'n':
		b.WriteString("n" + n.num.RatString() + ";")
	case 'o', 'a':
		b.WriteByte(n.kind)
		b.WriteString(strconv.Itoa(len(n.vals)))
		for i, v := range n.vals {
			if n.kind == 'o' {
				b.WriteString(strconv.Itoa(len(n.keys[i])) + ":" + n.keys[i])
			}
			v.key(b)
		}
		b.WriteByte(';')
	case 's':
		b.WriteString("s" + strconv.Itoa(len(n.str)) + ":" + n.str)
	default:
		b.WriteByte(n.kind)
	}
}

// jsonKey is Value.Key for a jsonb value.
func jsonKey(v Value) string {
	n, err := parseJSON(v.S)
	if err != nil {
		return "j?" + v.S // never: S is jsonb_out's text
	}
	var b strings.Builder
	b.WriteByte('j')
	n.key(&b)
	return b.String()
}

// scalarEq is equality of two scalars as jsonb compares them.
func scalarEq(a, b *jnode) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case 's':
		return a.str == b.str
	case 'n':
		return a.num.Cmp(b.num) == 0
	}
	return true
}

func (n *jnode) scalar() bool { return n.kind != 'o' && n.kind != 'a' }

// contains is JsonbDeepContains: a @> b.
func contains(a, b *jnode, top bool) bool {
	switch {
	case a.kind == 'o' && b.kind == 'o':
		for i, k := range b.keys {
			av := a.field(k)
			if av == nil {
				return false
			}
			bv := b.vals[i]
			switch {
			case bv.scalar():
				if !av.scalar() || !scalarEq(av, bv) {
					return false
				}
			case av.kind != bv.kind || !contains(av, bv, false):
				return false
			}
		}
		return true
	case a.kind == 'a' && b.kind == 'a':
		for _, bv := range b.vals {
			found := false
			for _, av := range a.vals {
				if bv.scalar() && av.scalar() && scalarEq(av, bv) ||
					!bv.scalar() && av.kind == bv.kind && contains(av, bv, false) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	case a.kind == 'a' && b.scalar() && top:
		// A top-level array contains a primitive it holds.
		for _, av := range a.vals {
			if av.scalar() && scalarEq(av, b) {
				return true
			}
		}
		return false
	case a.scalar() && b.scalar():
		return scalarEq(a, b)
	}
	return false
}

func (n *jnode) field(k string) *jnode {
	for i, key := range n.keys {
		if key == k {
			return n.vals[i]
		}
	}
	return nil
}

// jsonbOp evaluates ->, ->>, @>, <@ and ? on jsonb values.
func jsonbOp(name string, a, b Value) (Value, error) {
	if a.K != KJSON {
		return Null, cannot("%s on %s", name, kindName(a.K))
	}
	doc, err := parseJSON(a.S)
	if err != nil {
		return Null, err
	}
	switch name {
	case "->", "->>":
		var sub *jnode
		switch {
		case b.K == KText && !b.B && doc.kind == 'o':
			sub = doc.field(b.S)
		case b.K == KInt && doc.kind != 'o':
			// A scalar is stored as an array of one element: '"go"'
			// -> 0 and -> -1 are "go".
			elems := doc.vals
			if doc.scalar() {
				elems = []*jnode{doc}
			}
			i := b.I
			if i < 0 {
				i += int64(len(elems))
			}
			if i >= 0 && i < int64(len(elems)) {
				sub = elems[i]
			}
		case b.K != KText && b.K != KInt:
			return Null, cannot("%s with a %s key", name, kindName(b.K))
		}
		switch {
		case sub == nil:
			return Null, nil
		case name == "->":
			return Value{K: KJSON, S: sub.text()}, nil
		case sub.kind == 'z':
			return Null, nil
		case sub.kind == 's':
			return Text(sub.str), nil
		}
		return Text(sub.text()), nil
	case "@>", "<@":
		if b.K != KJSON {
			return Null, cannot("%s on %s", name, kindName(b.K))
		}
		other, err := parseJSON(b.S)
		if err != nil {
			return Null, err
		}
		if name == "<@" {
			doc, other = other, doc
		}
		return Bool(contains(doc, other, true)), nil
	case "?":
		if b.K != KText || b.B {
			return Null, cannot("? with a %s key", kindName(b.K))
		}
		elems := doc.vals
		switch {
		case doc.kind == 'o':
			return Bool(doc.field(b.S) != nil), nil
		case doc.scalar():
			elems = []*jnode{doc} // an array of one element, as for ->
		}
		for _, v := range elems {
			if v.kind == 's' && v.str == b.S {
				return Bool(true), nil
			}
		}
		return Bool(false), nil
	}
	return Null, cannot("operator %s on jsonb", name)
}
