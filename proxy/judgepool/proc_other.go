//go:build !linux

package judgepool

import "os/exec"

// dieWithParent has no portable equivalent off Linux: there a worker ends
// when its standard input closes.
func dieWithParent(*exec.Cmd) {}

// lowerPriority is Linux-only here; elsewhere workers keep the proxy's
// priority.
func lowerPriority(int) error { return nil }
