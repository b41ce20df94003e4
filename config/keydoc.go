package config

import (
	"strings"
)

// sectionDocs are the comments of the sections in DocYAML.
var sectionDocs = map[string]string{
	"upstream":  "or upstream: none, database-free (docs/database-free.md)",
	"tls":       "the certificate offered to clients; both or neither",
	"llm_judge": "optional LLM second opinion on unknown verdicts (docs/text-to-sql.md)",
	"telemetry": "OTLP export (docs/telemetry.md); OTEL_* variables win",
}

// docCommentColumn is where DocYAML's comments start.
const docCommentColumn = 32

// DocYAML is proxy.yaml with every key at its default (or an example
// value), each commented, as docs/proxy.md shows it. A section's keys are
// written together, where its first key stands in the table.
func DocYAML() string {
	type node struct {
		name     string
		key      *Key
		children []*node
	}
	root := &node{}
	for i := range keys {
		n := root
		for _, part := range strings.Split(keys[i].Name, ".") {
			var child *node
			for _, c := range n.children {
				if c.name == part {
					child = c
				}
			}
			if child == nil {
				child = &node{name: part}
				n.children = append(n.children, child)
			}
			n = child
		}
		n.key = &keys[i]
	}
	var b strings.Builder
	var write func(n *node, indent, path string)
	write = func(n *node, indent, path string) {
		for _, c := range n.children {
			if c.key == nil {
				docLine(&b, indent+c.name+":", sectionDocs[path+c.name])
				write(c, indent+"  ", path+c.name+".")
				continue
			}
			comment := c.key.Doc
			if c.key.Env != "" {
				comment = strings.TrimSuffix(c.key.Env+"; "+comment, "; ")
			}
			docLine(&b, indent+c.name+": "+c.key.docValue, comment)
		}
	}
	write(root, "", "")
	return b.String()
}

func docLine(b *strings.Builder, text, comment string) {
	b.WriteString(text)
	if comment != "" {
		b.WriteString(strings.Repeat(" ", max(1, docCommentColumn-len(text))))
		b.WriteString("# " + comment)
	}
	b.WriteByte('\n')
}
