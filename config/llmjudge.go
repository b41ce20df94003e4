package config

import (
	"fmt"
	"strings"
	"time"
)

// LLMJudge configures the optional language-model second opinion on
// unknown verdicts (docs/text-to-sql.md). Off unless endpoint is set.
type LLMJudge struct {
	// Endpoint is an OpenAI-compatible API's base URL
	// (…/v1; requests go to …/v1/chat/completions); empty: off.
	Endpoint string `yaml:"endpoint"`
	Model    string `yaml:"model"`
	// APIKeyEnv names the environment variable holding the API key; the
	// key itself is never written in the file.
	APIKeyEnv string `yaml:"api_key_env"`
	// Samples is k of the majority vote.
	Samples int `yaml:"samples"`
	// Timeout is the per-pair budget; verdict_timeout still bounds the
	// whole judgement.
	Timeout time.Duration `yaml:"timeout"`
}

func defaultLLMJudge() LLMJudge {
	return LLMJudge{APIKeyEnv: "OPENAI_API_KEY", Samples: 3, Timeout: 30 * time.Second}
}

func (l LLMJudge) validate(c *Config) []error {
	if l.Endpoint == "" {
		return nil
	}
	var errs []error
	if !strings.HasPrefix(l.Endpoint, "http://") && !strings.HasPrefix(l.Endpoint, "https://") {
		errs = append(errs, fmt.Errorf("llm_judge.endpoint: %q is not an http(s) URL", l.Endpoint))
	}
	if l.Model == "" {
		errs = append(errs, fmt.Errorf("llm_judge.model: required with llm_judge.endpoint"))
	}
	if l.Samples < 1 || l.Samples > 15 {
		errs = append(errs, fmt.Errorf("llm_judge.samples: %d is outside 1..15", l.Samples))
	}
	if l.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("llm_judge.timeout: must be positive"))
	}
	if c.JudgeIsolation != "none" {
		// Judge worker processes get options over a pipe; an HTTP client
		// and its cache do not cross it.
		errs = append(errs, fmt.Errorf("llm_judge: needs judge_isolation: none (judge worker processes do not call out)"))
	}
	return errs
}
