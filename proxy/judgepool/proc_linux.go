package judgepool

import (
	"os/exec"
	"syscall"
)

// dieWithParent asks the kernel to kill the worker when the proxy dies,
// even by SIGKILL, so no worker outlives it. The signal follows the OS
// thread that started the child; Go ends a thread only when a goroutine
// locked to it exits, which the pool never does.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
