package config

import (
	"strings"
	"testing"
	"time"
)

// llm_judge is off by default, is read as written when set, and is
// refused where it cannot work.
func TestLLMJudgeConfig(t *testing.T) {
	parse := func(text string) (*Config, error) {
		t.Helper()
		c, err := Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		c.applyEnv(func(string) string { return "" })
		return c, c.Validate()
	}
	c, err := parse("upstream: none\n")
	if err != nil || c.LLMJudge.Endpoint != "" || c.LLMJudge.APIKeyEnv != "OPENAI_API_KEY" {
		t.Fatalf("default: %+v, err %v; want off", c.LLMJudge, err)
	}
	c, err = parse("upstream: none\njudge_isolation: none\nllm_judge:\n  endpoint: http://127.0.0.1:8000/v1\n  model: qwen2.5-coder\n  samples: 5\n  timeout: 10s\n")
	if err != nil {
		t.Fatal(err)
	}
	if l := c.LLMJudge; l.Endpoint != "http://127.0.0.1:8000/v1" || l.Model != "qwen2.5-coder" || l.Samples != 5 || l.Timeout != 10*time.Second {
		t.Errorf("llm_judge %+v", l)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"llm_judge:\n  endpoint: http://x/v1\n  model: m\n", "needs judge_isolation: none"},
		{"judge_isolation: none\nllm_judge:\n  endpoint: http://x/v1\n", "llm_judge.model: required"},
		{"judge_isolation: none\nllm_judge:\n  endpoint: x\n  model: m\n", "not an http(s) URL"},
		{"judge_isolation: none\nllm_judge:\n  endpoint: http://x/v1\n  model: m\n  samples: 0\n", "llm_judge.samples"},
	} {
		if _, err := parse("upstream: none\n" + tc.yaml); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.yaml, err, tc.want)
		}
	}
}
