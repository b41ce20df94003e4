package llmjudge

import (
	"fmt"
	"strings"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// systemPrompt states the task and the answer format. "Strong" and
// "weak" follow the LLM-equivalence literature: strong means the same
// result on every database; weak means the same up to row order,
// duplicates or output column names, or only on databases that hold
// the constraints the schema declares but does not enforce.
const systemPrompt = `You judge whether two SQL queries are semantically equivalent: whether they return the same result on every database of the given schema.
Answer with one JSON object and nothing else:
{"verdict": "equivalent" | "not_equivalent" | "unsure", "equivalence": "strong" | "weak" | "none", "reason": "<one or two sentences>"}
"strong": the same rows (and row order where the first query orders them) on every database of the schema.
"weak": the same only up to row order, duplicate rows or column names, or only on typical data.
Use "not_equivalent" only when you can describe a database on which the results differ; say "unsure" otherwise.`

// prompt builds the messages for one pair: the schema as DDL, both
// queries, and what the rule-based judge found.
func prompt(req equivalence.AdviceRequest) []chatMessage {
	var b strings.Builder
	dialect := "PostgreSQL"
	if req.Schema.Dialect == catalog.SQLite {
		dialect = "SQLite"
	}
	fmt.Fprintf(&b, "Schema (%s):\n%s\n", dialect, DDL(req.Schema))
	fmt.Fprintf(&b, "Query 1 (reference):\n%s\n\nQuery 2 (candidate):\n%s\n\n", req.Reference, req.Candidate)
	v := req.Verdict
	b.WriteString("A rule-based checker could neither prove nor refute equivalence.\n")
	if len(v.Rules) > 0 {
		fmt.Fprintf(&b, "Rewrite rules it applied: %s.\n", strings.Join(v.Rules, ", "))
	}
	if len(v.Differences) > 0 {
		b.WriteString("Differences it found between the normalized queries:\n")
		for i, d := range v.Differences {
			if i == 20 {
				fmt.Fprintf(&b, "- ... and %d more\n", len(v.Differences)-i)
				break
			}
			fmt.Fprintf(&b, "- %s\n", d)
		}
	}
	for _, n := range v.Notes {
		fmt.Fprintf(&b, "Note: %s\n", n)
	}
	return []chatMessage{{Role: "system", Content: systemPrompt}, {Role: "user", Content: b.String()}}
}

// DDL renders a schema as CREATE TABLE statements with its keys.
func DDL(s *catalog.Schema) string {
	var b strings.Builder
	for _, t := range s.Tables {
		if t.IsView() {
			fmt.Fprintf(&b, "CREATE VIEW %s AS %s;\n", t.Name, t.ViewSQL)
			continue
		}
		fmt.Fprintf(&b, "CREATE TABLE %s (\n", t.Name)
		var lines []string
		for _, c := range t.Columns {
			l := "  " + c.Name
			if c.TypeSQL != "" {
				l += " " + c.TypeSQL
			} else if c.Type != catalog.Unknown {
				l += " " + c.Type.String()
			}
			if c.NotNull {
				l += " NOT NULL"
			}
			lines = append(lines, l)
		}
		names := func(t *catalog.Table, ords []int) string {
			var ns []string
			for _, o := range ords {
				if o >= 0 && o < len(t.Columns) {
					ns = append(ns, t.Columns[o].Name)
				}
			}
			return strings.Join(ns, ", ")
		}
		if len(t.PrimaryKey) > 0 {
			lines = append(lines, "  PRIMARY KEY ("+names(t, t.PrimaryKey)+")")
		}
		for _, u := range t.Unique {
			lines = append(lines, "  UNIQUE ("+names(t, u)+")")
		}
		for _, fk := range t.ForeignKeys {
			ref := s.Table(fk.RefTable)
			l := "  FOREIGN KEY (" + names(t, fk.Columns) + ") REFERENCES " + fk.RefTable
			if ref != nil && len(fk.RefColumns) > 0 {
				l += " (" + names(ref, fk.RefColumns) + ")"
			}
			lines = append(lines, l)
		}
		b.WriteString(strings.Join(lines, ",\n"))
		b.WriteString("\n);\n")
	}
	return b.String()
}
