package catalog

import _ "embed"

//go:embed example.sql
var exampleDDL string

// ExampleDDL is the bundled example schema (a dog kennel), used when no
// schema is configured.
func ExampleDDL() string { return exampleDDL }
