package main

import (
	"flag"
	"os"
	"time"

	"github.com/pgequiv/pgequiv/config"
	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/eval/llmjudge"
)

// llmFlags configure the optional LLM second opinion on unknown
// verdicts; off unless --llm-endpoint is given.
type llmFlags struct {
	endpoint, model, keyEnv string
	samples                 int
	timeout                 time.Duration
}

func (l *llmFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.endpoint, "llm-endpoint", "", "OpenAI-compatible API base URL (…/v1) for an LLM second opinion on unknown verdicts; empty: off")
	fs.StringVar(&l.model, "llm-model", "", "model name for --llm-endpoint")
	fs.StringVar(&l.keyEnv, "llm-api-key-env", config.DefaultLLMAPIKeyEnv, "environment variable holding the API key")
	fs.IntVar(&l.samples, "llm-samples", config.DefaultLLMSamples, "answers per pair for the majority vote")
	fs.DurationVar(&l.timeout, "llm-timeout", config.DefaultLLMTimeout, "budget per pair for the LLM (the judgement's own budget still applies)")
}

// apply sets opts.Adviser when the LLM is configured.
func (l *llmFlags) apply(opts *equivalence.Options) error {
	if l.endpoint == "" {
		return nil
	}
	j, err := llmjudge.New(llmjudge.Config{Endpoint: l.endpoint, Model: l.model, APIKey: os.Getenv(l.keyEnv), Samples: l.samples, Timeout: l.timeout})
	if err != nil {
		return err
	}
	opts.Adviser = j
	return nil
}
