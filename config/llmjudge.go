package config

import "time"

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
