// Command pgequiv is a PostgreSQL wire-protocol proxy that judges whether a
// query means the same as a reference query, using only the schema.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "pgequiv: no subcommands yet")
	os.Exit(2)
}
