//go:build !linux

package gmntrain_test

import "time"

// threadCPU falls back to wall time where thread CPU clocks are not wired.
func threadCPU() time.Duration { return time.Duration(time.Now().UnixNano()) }
