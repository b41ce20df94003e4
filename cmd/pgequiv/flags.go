package main

import (
	"flag"
	"regexp"
)

// flagArg is what an argument that is a flag looks like: -name or
// --name, with =value or not, and no blanks (SQL text such as
// "-- note\nSELECT 1" is an argument, not a flag).
var flagArg = regexp.MustCompile(`^--?([A-Za-z][A-Za-z0-9_.-]*)(=.*)?$`)

// parseInterleaved parses fs's flags wherever they stand among args, as
// most command-line tools do, so that "check A B --json" is "check --json
// A B"; it returns the other arguments in order. Everything after "--" is
// an argument.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i+1:]...)
			break
		}
		m := flagArg.FindStringSubmatch(a)
		if m == nil {
			rest = append(rest, a)
			continue
		}
		flags = append(flags, a)
		if m[2] != "" {
			continue
		}
		f := fs.Lookup(m[1])
		if f == nil {
			continue // Parse reports it
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	if err := fs.Parse(flags); err != nil {
		return nil, err
	}
	return rest, nil
}
