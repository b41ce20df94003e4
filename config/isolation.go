package config

// IsolationChanged reports whether next changes a setting of the judge
// that only a restart applies.
func (c *Config) IsolationChanged(next *Config) bool {
	return c.JudgeIsolation != next.JudgeIsolation || c.JudgeWorkers != next.JudgeWorkers ||
		c.JudgeMemoryLimit != next.JudgeMemoryLimit
}
