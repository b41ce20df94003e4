package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Node renders a plan tree, one operator per line, indented by depth.
func (f *Formatter) Node(n *Node) string {
	var b strings.Builder
	f.node(&b, n, 0)
	return b.String()
}

// node writes n; depth < 0 asks for the one-line form used inside
// subquery expressions.
func (f *Formatter) node(b *strings.Builder, n *Node, depth int) {
	if depth >= 0 {
		b.WriteString(strings.Repeat("  ", depth))
	}
	f.header(b, n)
	for _, in := range n.Inputs {
		if depth >= 0 {
			b.WriteByte('\n')
			f.node(b, in, depth+1)
		} else {
			b.WriteString(" (")
			f.node(b, in, -1)
			b.WriteString(")")
		}
	}
}

// header writes the one-line description of n without its inputs.
func (f *Formatter) header(b *strings.Builder, n *Node) {
	b.WriteString(n.Op.String())
	switch n.Op {
	case OpScan:
		b.WriteString(" " + quoteIdent(n.Table.Name))
		if !f.Anonymous && !(f.aliases && f.instName(n.Instance) == quoteIdent(n.Table.Name)) {
			b.WriteString(" as " + f.instName(n.Instance))
		}
	case OpFilter:
		b.WriteByte(' ')
		f.list(b, n.Preds)
	case OpProject, OpWindow:
		b.WriteByte(' ')
		for i, p := range n.Proj {
			if i > 0 {
				b.WriteString(", ")
			}
			f.expr(b, p.Expr)
		}
	case OpJoin:
		b.WriteString(" " + n.Join.String())
		if n.Join == InnerJoin && len(n.Preds) == 0 {
			b.WriteString(" (cross)")
		}
		if len(n.Preds) > 0 {
			b.WriteString(" on ")
			f.list(b, n.Preds)
		}
	case OpAggregate:
		b.WriteString(" group by (")
		for i, c := range n.GroupBy {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.Col(c))
		}
		b.WriteString(")")
		for _, a := range n.Aggs {
			b.WriteString(", ")
			f.expr(b, a.Expr)
		}
	case OpSort:
		b.WriteByte(' ')
		f.keys(b, n.Keys)
	case OpLimit:
		if n.Limit != nil {
			b.WriteString(" " + f.Expr(n.Limit))
		}
		if n.Offset != nil {
			b.WriteString(" offset " + f.Expr(n.Offset))
		}
	case OpSetOp:
		b.WriteString(" " + n.Set.String())
		if n.All {
			b.WriteString(" all")
		}
		// Inputs' columns, when they are not simply all of the input in
		// order, matter to the meaning.
		for i, cols := range n.SetCols {
			if !sameCols(cols, n.Inputs[i].OutCols()) {
				b.WriteString(" [")
				for j, c := range cols {
					if j > 0 {
						b.WriteString(", ")
					}
					b.WriteString(f.Col(c))
				}
				b.WriteString("]")
			}
		}
	case OpValues:
		for i, r := range n.Rows {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(" (")
			f.list(b, r)
			b.WriteByte(')')
		}
	}
}

func sameCols(a, b []ColumnID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Canonical returns the canonical text of a normalized plan: the operator
// tree plus whether order matters. Output names are not part of it.
func (p *Plan) Canonical() string {
	f := NewFormatter(p.Meta, p.Root, false)
	s := f.Node(p.Root)
	if p.Ordered {
		s = "ordered\n" + s
	}
	return s
}

// Fingerprint hashes the canonical text. Equal fingerprints mean equal
// normalized plans.
func (p *Plan) Fingerprint() string {
	sum := sha256.Sum256([]byte(p.Canonical()))
	return hex.EncodeToString(sum[:8])
}

// Explain renders the plan for people: the canonical tree preceded by the
// output column names.
func (p *Plan) Explain() string {
	var b strings.Builder
	b.WriteString("output: ")
	for i, n := range p.Names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
	}
	b.WriteByte('\n')
	b.WriteString(p.Canonical())
	return b.String()
}

// JSONNode is the JSON form of a plan node.
type JSONNode struct {
	Op     string      `json:"op"`
	Detail string      `json:"detail,omitempty"`
	Inputs []*JSONNode `json:"inputs,omitempty"`
}

// JSONTree returns the canonical plan as nested nodes, each with its
// one-line canonical description.
func (p *Plan) JSONTree() *JSONNode {
	f := NewFormatter(p.Meta, p.Root, false)
	var conv func(n *Node) *JSONNode
	conv = func(n *Node) *JSONNode {
		var b strings.Builder
		f.header(&b, n)
		j := &JSONNode{Op: n.Op.String(), Detail: strings.TrimSpace(strings.TrimPrefix(b.String(), n.Op.String()))}
		for _, in := range n.Inputs {
			j.Inputs = append(j.Inputs, conv(in))
		}
		return j
	}
	return conv(p.Root)
}
