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

// workerNice is the niceness judge workers run at. Judging is CPU-bound
// background work; relaying, and answering a query whose judgement ran
// out of time, is not. Under CPU contention (100 annotate clients and
// 50 enforce clients on two cores) workers at the proxy's own priority
// took the CPU the proxy needed to answer at the deadline.
const workerNice = 10

// lowerPriority makes the worker pid yield the CPU to the proxy. A
// failure (a sandbox without setpriority) leaves the worker as it was.
func lowerPriority(pid int) error {
	return syscall.Setpriority(syscall.PRIO_PROCESS, pid, workerNice)
}
