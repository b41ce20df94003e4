package config

import (
	"strings"
	"testing"

	"github.com/pgequiv/pgequiv/equivalence/llmjudge"
	"github.com/pgequiv/pgequiv/proxy"
)

// llm_judge is off by default, reaches the judge's options in both modes
// when set, and is refused where it cannot work.
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
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.JudgeSettings(proxy.Upstream{})
	if err != nil || s.Options.Adviser != nil {
		t.Fatalf("default: adviser %v, err %v; want off", s.Options.Adviser, err)
	}
	c, err = parse("upstream: none\njudge_isolation: none\nllm_judge:\n  endpoint: http://127.0.0.1:8000/v1\n  model: qwen2.5-coder\n  samples: 5\n  timeout: 10s\n")
	if err != nil {
		t.Fatal(err)
	}
	s, err = c.JudgeSettings(proxy.Upstream{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Options.Adviser.(*llmjudge.Judge); !ok {
		t.Errorf("relay mode adviser %T, want *llmjudge.Judge", s.Options.Adviser)
	}
	d, err := c.DBFreeOptions()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Judge.Adviser.(*llmjudge.Judge); !ok {
		t.Errorf("database-free adviser %T, want *llmjudge.Judge", d.Judge.Adviser)
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
