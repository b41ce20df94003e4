// Package llmjudge asks a language model, through an OpenAI-compatible
// chat-completions endpoint, whether two queries the rules could not
// decide are equivalent. It implements equivalence.Adviser: the judge asks
// it only about unknown verdicts, and its answer moves the score but never
// becomes a proved label.
//
// Each pair gets k samples (majority vote) within one per-pair budget;
// answers are cached by (schema fingerprint, both queries, model). Every
// failure (timeout, HTTP error, rate limit past its retries, an answer
// that is not the JSON asked for) ends in an error, never a panic, and
// the judge keeps its verdict without the model.
package llmjudge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/pgequiv/pgequiv/cache"
	"github.com/pgequiv/pgequiv/equivalence"
)

// Config configures a Judge.
type Config struct {
	// Endpoint is the API's base URL; requests go to
	// Endpoint + "/chat/completions" (e.g. https://api.openai.com/v1, or
	// http://127.0.0.1:8000/v1 for a local vLLM or llama.cpp server).
	Endpoint string
	Model    string
	// APIKey is sent as a bearer token; empty sends none (local servers).
	APIKey string
	// Samples is k, the answers asked for per pair; 0 means 3.
	Samples int
	// Temperature of each sample; 0 means 0.7 (samples must differ for a
	// vote to mean anything).
	Temperature float64
	// Timeout is the per-pair budget, every sample and retry included; 0
	// means 30s. A shorter deadline on the judge's context wins.
	Timeout time.Duration
	// Retries is how often a sample is retried after 429 or a 5xx; 0
	// means 2, negative none.
	Retries int
	// Backoff is the first wait before a retry, doubled each time; a
	// Retry-After header overrides it. 0 means 500ms.
	Backoff time.Duration
	// CacheEntries bounds the answer cache; 0 means 4096.
	CacheEntries int
	// Client makes the requests; nil means a client without its own
	// timeout (the per-pair budget bounds each call).
	Client *http.Client
}

// Judge is an equivalence.Adviser backed by a chat-completions endpoint.
// It is safe for concurrent use.
type Judge struct {
	cfg   Config
	url   string
	cache *cache.Cache[cache.Fingerprint, equivalence.Opinion]
}

// New validates cfg and returns a Judge.
func New(cfg Config) (*Judge, error) {
	if cfg.Endpoint == "" || cfg.Model == "" {
		return nil, errors.New("llmjudge: endpoint and model are required")
	}
	if !strings.HasPrefix(cfg.Endpoint, "http://") && !strings.HasPrefix(cfg.Endpoint, "https://") {
		return nil, fmt.Errorf("llmjudge: endpoint %q is not an http(s) URL", cfg.Endpoint)
	}
	if cfg.Samples < 0 || cfg.Samples > 15 {
		return nil, fmt.Errorf("llmjudge: samples %d: want 1 to 15", cfg.Samples)
	}
	if cfg.Samples == 0 {
		cfg.Samples = 3
	}
	if cfg.Temperature == 0 {
		cfg.Temperature = 0.7
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.Retries == 0 {
		cfg.Retries = 2
	} else if cfg.Retries < 0 {
		cfg.Retries = 0
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = 500 * time.Millisecond
	}
	if cfg.CacheEntries == 0 {
		cfg.CacheEntries = 4096
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{}
	}
	c, err := cache.New[cache.Fingerprint, equivalence.Opinion](cache.Options[cache.Fingerprint, equivalence.Opinion]{MaxEntries: cfg.CacheEntries})
	if err != nil {
		return nil, fmt.Errorf("llmjudge: cache: %w", err)
	}
	return &Judge{cfg: cfg, url: strings.TrimRight(cfg.Endpoint, "/") + "/chat/completions", cache: c}, nil
}

// ErrNoAnswer says no sample gave a usable answer.
var ErrNoAnswer = errors.New("llmjudge: no usable answer")

// Advise implements equivalence.Adviser.
func (j *Judge) Advise(ctx context.Context, req equivalence.AdviceRequest) (equivalence.Opinion, error) {
	key := cache.FingerprintOf([]byte(req.Schema.Fingerprint() + "\x00" + req.Reference + "\x00" + req.Candidate + "\x00" + j.cfg.Model))
	if op, ok := j.cache.Get(key); ok {
		op.Cached = true
		return op, nil
	}
	ctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
	defer cancel()
	msgs := prompt(req)
	answers := make([]answer, j.cfg.Samples)
	errs := make([]error, j.cfg.Samples)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i], errs[i] = j.sample(ctx, msgs)
		}()
	}
	wg.Wait()
	op, ok := vote(answers, errs)
	if !ok {
		return equivalence.Opinion{}, fmt.Errorf("%w: %w", ErrNoAnswer, errors.Join(errs...))
	}
	op.Model = j.cfg.Model
	j.cache.Add(key, op)
	return op, nil
}

// answer is what the model is asked to reply.
type answer struct {
	Verdict     string `json:"verdict"`
	Equivalence string `json:"equivalence"`
	Reason      string `json:"reason"`
}

// vote takes the majority of the usable answers; a tie is unsure.
func vote(answers []answer, errs []error) (equivalence.Opinion, bool) {
	count := map[string]int{}
	strong := map[string]int{}
	usable := 0
	reason := map[string]string{}
	for i, a := range answers {
		if errs[i] != nil {
			continue
		}
		usable++
		count[a.Verdict]++
		if a.Equivalence == "strong" {
			strong[a.Verdict]++
		}
		if reason[a.Verdict] == "" {
			reason[a.Verdict] = a.Reason
		}
	}
	if usable == 0 {
		return equivalence.Opinion{}, false
	}
	best, n, tie := "", 0, false
	for _, v := range []string{equivalence.OpinionEquivalent, equivalence.OpinionNotEquivalent, equivalence.OpinionUnsure} {
		switch {
		case count[v] > n:
			best, n, tie = v, count[v], false
		case count[v] == n && n > 0:
			tie = true
		}
	}
	op := equivalence.Opinion{Answer: best, Votes: n, Samples: len(answers), Reason: reason[best]}
	if tie {
		op = equivalence.Opinion{Answer: equivalence.OpinionUnsure, Votes: 0, Samples: len(answers), Reason: "the samples were split"}
	}
	if op.Answer == equivalence.OpinionEquivalent {
		op.Strength = "weak"
		if 2*strong[best] > n {
			op.Strength = "strong"
		}
	}
	return op, true
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
}

// StatusError is an HTTP answer other than 200.
type StatusError struct {
	Code int
	Body string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("llmjudge: HTTP %d: %s", e.Code, e.Body)
}

// retryable reports whether a status is worth another try: rate limits
// and server errors.
func retryable(code int) bool { return code == http.StatusTooManyRequests || code >= 500 }

// sample asks for one answer, retrying rate limits and server errors with
// exponential backoff while the budget lasts.
func (j *Judge) sample(ctx context.Context, msgs []chatMessage) (answer, error) {
	body, err := json.Marshal(chatRequest{Model: j.cfg.Model, Messages: msgs, Temperature: j.cfg.Temperature})
	if err != nil {
		return answer{}, fmt.Errorf("llmjudge: request: %w", err)
	}
	wait := j.cfg.Backoff
	for attempt := 0; ; attempt++ {
		content, retryAfter, err := j.post(ctx, body)
		if err == nil {
			return parseAnswer(content)
		}
		var se *StatusError
		if !errors.As(err, &se) || !retryable(se.Code) || attempt >= j.cfg.Retries {
			return answer{}, err
		}
		if retryAfter > 0 {
			wait = retryAfter
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return answer{}, fmt.Errorf("llmjudge: waiting to retry after %w: %w", err, ctx.Err())
		case <-t.C:
		}
		wait *= 2
	}
}

// maxBody bounds what is read of a response.
const maxBody = 1 << 20

func (j *Judge) post(ctx context.Context, body []byte) (string, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.url, bytes.NewReader(body))
	if err != nil {
		return "", 0, fmt.Errorf("llmjudge: request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if j.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+j.cfg.APIKey)
	}
	resp, err := j.cfg.Client.Do(req)
	if err != nil {
		return "", 0, fmt.Errorf("llmjudge: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return "", 0, fmt.Errorf("llmjudge: reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		var after time.Duration
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
			after = time.Duration(s) * time.Second
		}
		text := string(data)
		if len(text) > 200 {
			text = text[:200]
		}
		return "", after, &StatusError{Code: resp.StatusCode, Body: strings.TrimSpace(text)}
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return "", 0, fmt.Errorf("llmjudge: the response is not a chat completion: %w", err)
	}
	if len(cr.Choices) == 0 {
		return "", 0, errors.New("llmjudge: the response has no choices")
	}
	return cr.Choices[0].Message.Content, 0, nil
}

// ErrMalformed says the model's answer is not the JSON object asked for.
var ErrMalformed = errors.New("llmjudge: malformed answer")

// parseAnswer reads the JSON object in content, also when the model
// wrapped it in a code fence or prose.
func parseAnswer(content string) (answer, error) {
	start, end := strings.IndexByte(content, '{'), strings.LastIndexByte(content, '}')
	if start < 0 || end < start {
		return answer{}, fmt.Errorf("%w: no JSON object in %q", ErrMalformed, clip(content))
	}
	var a answer
	if err := json.Unmarshal([]byte(content[start:end+1]), &a); err != nil {
		return answer{}, fmt.Errorf("%w: %v in %q", ErrMalformed, err, clip(content))
	}
	a.Verdict = strings.ToLower(strings.TrimSpace(a.Verdict))
	switch a.Verdict {
	case "not equivalent", "not", "different":
		a.Verdict = equivalence.OpinionNotEquivalent
	}
	switch a.Verdict {
	case equivalence.OpinionEquivalent, equivalence.OpinionNotEquivalent, equivalence.OpinionUnsure:
	default:
		return answer{}, fmt.Errorf("%w: verdict %q is not equivalent, not_equivalent or unsure", ErrMalformed, a.Verdict)
	}
	a.Equivalence = strings.ToLower(strings.TrimSpace(a.Equivalence))
	a.Reason = clip(strings.TrimSpace(a.Reason))
	return a, nil
}

// clip shortens s to about 300 bytes on a rune boundary.
func clip(s string) string {
	if len(s) <= 300 {
		return s
	}
	cut := 300
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
