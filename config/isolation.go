package config

import (
	"log/slog"

	"github.com/pgequiv/pgequiv/proxy/judgepool"
)

// Judger builds the judge the proxy uses in either mode, as
// judge_isolation says: a pool of worker processes (started here, which
// takes a few milliseconds per worker; the caller closes it) or the
// in-process judge.
func (c *Config) Judger(logger *slog.Logger) (judgepool.Backend, error) {
	if c.JudgeIsolation == "none" {
		return judgepool.NewLocal(judgepool.LocalOptions{Logger: logger})
	}
	return judgepool.New(c.JudgePoolOptions(logger))
}

// JudgePoolOptions are the worker pool's options from judge_workers and
// judge_memory_limit.
func (c *Config) JudgePoolOptions(logger *slog.Logger) judgepool.Options {
	return judgepool.Options{Workers: c.JudgeWorkers, MemoryLimit: int64(c.JudgeMemoryLimit), Logger: logger}
}

// IsolationChanged reports whether next changes a setting of the judge
// that only a restart applies.
func (c *Config) IsolationChanged(next *Config) bool {
	return c.JudgeIsolation != next.JudgeIsolation || c.JudgeWorkers != next.JudgeWorkers ||
		c.JudgeMemoryLimit != next.JudgeMemoryLimit
}
