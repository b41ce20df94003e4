// Package buildinfo reads what the Go toolchain recorded about the build
// of the running binary (module version, VCS revision and time, Go
// version), for `pgequiv version` and the admin console's SHOW VERSION,
// so that both say the same.
//
// `go build` in a git checkout records the revision unless -buildvcs=false
// (GOFLAGS or `go env -w`) turns that off; `go run` and `go test` do not
// record it.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Info is what the build recorded; empty strings where it recorded
// nothing.
type Info struct {
	Version    string // module version, "(devel)" when not built from a module version
	Revision   string // VCS revision
	Time       string // VCS commit time, RFC 3339
	Modified   bool   // the working tree had uncommitted changes
	GoVersion  string
	GOOS, Arch string
}

// Read is the running binary's Info.
func Read() Info {
	bi, _ := debug.ReadBuildInfo()
	return From(bi)
}

// From is the Info bi records (nil: no build information).
func From(bi *debug.BuildInfo) Info {
	in := Info{Version: "(devel)", GoVersion: runtime.Version(), GOOS: runtime.GOOS, Arch: runtime.GOARCH}
	if bi == nil {
		return in
	}
	if bi.Main.Version != "" {
		in.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		in.GoVersion = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// revision is the revision with " (modified)" when the tree was.
func (in Info) revision() string {
	if in.Revision != "" && in.Modified {
		return in.Revision + " (modified)"
	}
	return in.Revision
}

// Lines is the multi-line form `pgequiv version` prints: the version,
// then the revision and commit time when recorded, then the Go version.
func (in Info) Lines() string {
	var b strings.Builder
	fmt.Fprintf(&b, "pgequiv %s\n", in.Version)
	if r := in.revision(); r != "" {
		fmt.Fprintf(&b, "revision: %s\n", r)
	}
	if in.Time != "" {
		fmt.Fprintf(&b, "commit time: %s\n", in.Time)
	}
	fmt.Fprintf(&b, "go: %s %s/%s\n", in.GoVersion, in.GOOS, in.Arch)
	return b.String()
}

// String is the one-line form (SHOW VERSION): "pgequiv v1.2.3, revision
// abc (modified), commit time T, go1.26 linux/amd64", without the parts
// the build did not record.
func (in Info) String() string {
	parts := []string{"pgequiv " + in.Version}
	if r := in.revision(); r != "" {
		parts = append(parts, "revision "+r)
	}
	if in.Time != "" {
		parts = append(parts, "commit time "+in.Time)
	}
	parts = append(parts, in.GoVersion+" "+in.GOOS+"/"+in.Arch)
	return strings.Join(parts, ", ")
}
