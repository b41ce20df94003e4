package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// proc is a long-running child process (postgres, pgbouncer) whose output
// goes to a log file in its temporary directory.
type proc struct {
	name    string
	cmd     *exec.Cmd
	exited  chan struct{} // closed when the process has exited
	waitErr error         // valid after exited is closed
}

// start runs cmd with stdout and stderr appended to logPath.
func (p *proc) start(name string, cmd *exec.Cmd, logPath string) error {
	p.name = name
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close() // the child keeps its own descriptor
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgtest: start %s: %w", name, err)
	}
	p.cmd = cmd
	p.exited = make(chan struct{})
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return nil
}

// stop sends SIGINT (fast shutdown for postgres, immediate for pgbouncer),
// kills the process if it has not exited after timeout, and then removes
// dir. It is safe to call more than once and on a proc never started.
func (p *proc) stop(timeout time.Duration, dir *string) error {
	var err error
	if p.cmd != nil {
		select {
		case <-p.exited:
		default:
			_ = p.cmd.Process.Signal(syscall.SIGINT)
			select {
			case <-p.exited:
			case <-time.After(timeout):
				_ = p.cmd.Process.Kill()
				<-p.exited
				err = fmt.Errorf("pgtest: %s did not stop in %v; killed", p.name, timeout)
			}
		}
	}
	if *dir != "" {
		err = errors.Join(err, os.RemoveAll(*dir))
		*dir = ""
	}
	return err
}

// readLogs returns the contents of the named files in dir, concatenated.
func readLogs(dir string, names ...string) string {
	var s string
	for _, n := range names {
		b, _ := os.ReadFile(filepath.Join(dir, n))
		s += string(b)
	}
	return s
}

// Signal sends sig to the cluster's postmaster: SIGSTOP makes a server
// that accepts TCP connections (the kernel completes them) but answers
// nothing, until SIGCONT.
func (c *Cluster) Signal(sig os.Signal) error {
	if c.proc.cmd == nil {
		return errors.New("pgtest: no postmaster")
	}
	return c.proc.cmd.Process.Signal(sig)
}
