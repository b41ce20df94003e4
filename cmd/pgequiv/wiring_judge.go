package main

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/eval/llmjudge"
	"github.com/pgequiv/pgequiv/gmn"
	gmnmodel "github.com/pgequiv/pgequiv/gmn/model"
	"github.com/pgequiv/pgequiv/proxy/judgepool"
)

// startJudge builds the judge the proxy uses in either mode, as
// judge_isolation says: a pool of worker processes (started here, which
// takes a few milliseconds per worker; the caller closes it) or the
// in-process judge.
func startJudge(c *config.Config, logger *slog.Logger) (judgepool.Backend, error) {
	if c.JudgeIsolation == "none" {
		return judgepool.NewLocal(judgepool.LocalOptions{Logger: logger})
	}
	return judgepool.New(judgePoolOptions(c, logger))
}

// judgePoolOptions are the worker pool's options from judge_workers and
// judge_memory_limit.
func judgePoolOptions(c *config.Config, logger *slog.Logger) judgepool.Options {
	return judgepool.Options{Workers: c.JudgeWorkers, MemoryLimit: int64(c.JudgeMemoryLimit), Logger: logger}
}

// refuteOptions are the judge's counterexample search settings.
func refuteOptions(c *config.Config) equivalence.RefuteOptions {
	return equivalence.RefuteOptions{Off: !c.RefuteOn(), Budget: c.RefuteBudgetInForce()}
}

// gmnModel is the shipped graph matching network under gmn: true, or nil.
func gmnModel(c *config.Config) (*gmn.Model, error) {
	if !c.GMN {
		return nil, nil
	}
	m, err := gmnmodel.Default()
	if err != nil {
		return nil, fmt.Errorf("config: gmn: %w", err)
	}
	return m, nil
}

// adviser builds the LLM adviser, or nil when llm_judge is off.
func adviser(c *config.Config) (equivalence.Adviser, error) {
	l := c.LLMJudge
	if l.Endpoint == "" {
		return nil, nil
	}
	j, err := llmjudge.New(llmjudge.Config{Endpoint: l.Endpoint, Model: l.Model, APIKey: os.Getenv(l.APIKeyEnv), Samples: l.Samples, Timeout: l.Timeout})
	if err != nil {
		return nil, fmt.Errorf("config: llm_judge: %w", err)
	}
	return j, nil
}
