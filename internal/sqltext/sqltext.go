// Package sqltext reads SQL text as PostgreSQL does, below both the relay
// and the planner: the relay (proxy/...) finds comments, literals and
// statements with it and classifies statements without linking the
// planner, and the planner shares its names of functions with side
// effects. It holds the lexer written after PostgreSQL 15's scan.l (Lex),
// the statement splitter (Split, and the E prefixes that make a text read
// with backslash strings read the same with standard ones), identifier
// quoting, the volatile and side-effect function names, and the check
// that refuses a NUL byte before a text reaches the judge.
package sqltext
