package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestFrom(t *testing.T) {
	plat := runtime.GOOS + "/" + runtime.GOARCH
	for _, tc := range []struct {
		name       string
		bi         *debug.BuildInfo
		lines, one string
	}{
		{
			name: "everything recorded",
			bi: &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "ebf98bf"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}},
			lines: "pgequiv v1.2.3\nrevision: ebf98bf (modified)\ncommit time: 2026-01-02T03:04:05Z\ngo: go1.26.0 " + plat + "\n",
			one:   "pgequiv v1.2.3, revision ebf98bf (modified), commit time 2026-01-02T03:04:05Z, go1.26.0 " + plat,
		},
		{
			name: "clean tree",
			bi: &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "ebf98bf"}, {Key: "vcs.modified", Value: "false"}}},
			lines: "pgequiv (devel)\nrevision: ebf98bf\ngo: go1.26.0 " + plat + "\n",
			one:   "pgequiv (devel), revision ebf98bf, go1.26.0 " + plat,
		},
		{
			name:  "no VCS information (-buildvcs=false, go run)",
			bi:    &debug.BuildInfo{GoVersion: "go1.26.0"},
			lines: "pgequiv (devel)\ngo: go1.26.0 " + plat + "\n",
			one:   "pgequiv (devel), go1.26.0 " + plat,
		},
		{
			name:  "no build information",
			lines: "pgequiv (devel)\ngo: " + runtime.Version() + " " + plat + "\n",
			one:   "pgequiv (devel), " + runtime.Version() + " " + plat,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := From(tc.bi)
			if got := in.Lines(); got != tc.lines {
				t.Errorf("Lines() = %q, want %q", got, tc.lines)
			}
			if got := in.String(); got != tc.one {
				t.Errorf("String() = %q, want %q", got, tc.one)
			}
		})
	}
}
