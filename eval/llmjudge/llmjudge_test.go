package llmjudge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pgequiv/pgequiv/equivalence"
	"github.com/pgequiv/pgequiv/planner/catalog"
)

// server is a local OpenAI-compatible chat-completions endpoint: reply
// decides each answer from the request number (0-based). No model runs
// here; the tests exercise the protocol and every way it can fail.
type server struct {
	*httptest.Server
	requests atomic.Int32
	mu       sync.Mutex
	seen     []chatRequest
	auth     []string
}

func newServer(t *testing.T, reply func(n int, w http.ResponseWriter, r *http.Request)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad request body", http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.seen = append(s.seen, req)
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		reply(int(s.requests.Add(1))-1, w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// completion writes a chat completion whose message is content.
func completion(w http.ResponseWriter, content string) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content}}}})
}

func judge(t *testing.T, s *server, mod func(*Config)) *Judge {
	t.Helper()
	cfg := Config{Endpoint: s.URL + "/v1", Model: "test-model", APIKey: "k", Samples: 3, Timeout: 5 * time.Second, Backoff: time.Millisecond}
	if mod != nil {
		mod(&cfg)
	}
	j, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

var schema = func() *catalog.Schema {
	s, err := catalog.LoadDDL(catalog.ExampleDDL(), catalog.Postgres)
	if err != nil {
		panic(err)
	}
	return s
}()

// An unknown pair of the example schema, and one the rules prove.
const (
	unknownRef, unknownCand = "SELECT name FROM dogs", "SELECT owner_id FROM dogs"
	provedRef, provedCand   = "SELECT COUNT(*) FROM dogs", "SELECT COUNT(owner_id) FROM dogs AS d"
)

func judgeWith(t *testing.T, ref, cand string, a equivalence.Adviser) equivalence.Verdict {
	t.Helper()
	v, err := equivalence.Judge(context.Background(), schema, ref, cand, equivalence.Options{Adviser: a, Refute: equivalence.RefuteOptions{Off: true}}) // structure alone keeps these pairs unknown, the only ones an adviser is asked about
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// sameVerdict compares what an adviser must not change when it gives no
// opinion: everything but notes and timings.
func sameVerdict(t *testing.T, got, want equivalence.Verdict) {
	t.Helper()
	if got.Label != want.Label || got.Score != want.Score || got.Likely != want.Likely || got.LLM != nil ||
		fmt.Sprint(got.Rules, got.Differences, got.Assumptions) != fmt.Sprint(want.Rules, want.Differences, want.Assumptions) {
		t.Errorf("verdict changed without an opinion:\n got %+v\nwant %+v", got, want)
	}
}

func TestMajorityMovesTheScoreNotTheLabel(t *testing.T) {
	answers := []string{
		`{"verdict": "equivalent", "equivalence": "strong", "reason": "same rows"}`,
		"```json\n{\"verdict\": \"equivalent\", \"equivalence\": \"strong\", \"reason\": \"fenced\"}\n```",
		`{"verdict": "not_equivalent", "equivalence": "none", "reason": "nulls"}`,
	}
	s := newServer(t, func(n int, w http.ResponseWriter, _ *http.Request) { completion(w, answers[n%3]) })
	j := judge(t, s, nil)
	off := judgeWith(t, unknownRef, unknownCand, nil)
	on := judgeWith(t, unknownRef, unknownCand, j)
	if off.Label != equivalence.Unknown || on.Label != equivalence.Unknown {
		t.Fatalf("labels %s / %s, want unknown both", off.Label, on.Label)
	}
	if on.LLM == nil || on.LLM.Answer != equivalence.OpinionEquivalent || on.LLM.Votes != 2 || on.LLM.Samples != 3 || on.LLM.Strength != "strong" || on.LLM.Model != "test-model" {
		t.Fatalf("opinion %+v, want equivalent (strong) 2/3", on.LLM)
	}
	if !(on.Score > off.Score && on.Score < 0.9) {
		t.Errorf("score %g without, %g with a 2/3 equivalent opinion: want higher, below every proof", off.Score, on.Score)
	}
	if !strings.Contains(on.Summary(), "llm: equivalent (strong) 2/3") {
		t.Errorf("summary %q lacks the opinion", on.Summary())
	}
	if s.requests.Load() != 3 {
		t.Errorf("%d requests, want 3 samples", s.requests.Load())
	}
	req := s.seen[0]
	user := req.Messages[1].Content
	for _, want := range []string{"CREATE TABLE dogs", "PRIMARY KEY (dog_id)", unknownRef, unknownCand, "select: dogs.name vs dogs.owner_id"} {
		if !strings.Contains(user, want) {
			t.Errorf("prompt lacks %q:\n%s", want, user)
		}
	}
	if req.Model != "test-model" || s.auth[0] != "Bearer k" || !strings.Contains(req.Messages[0].Content, `"verdict"`) {
		t.Errorf("request model %q auth %q system %q", req.Model, s.auth[0], req.Messages[0].Content)
	}
	// The same pair again comes from the cache.
	again := judgeWith(t, unknownRef, unknownCand, j)
	if s.requests.Load() != 3 || again.LLM == nil || !again.LLM.Cached || again.Score != on.Score {
		t.Errorf("second judgement: %d requests, opinion %+v; want the cached one", s.requests.Load(), again.LLM)
	}
}

// A candidate in syntax the planner does not support is unknown with no
// scores: the opinion is all there is, and it still is no proof.
func TestUnsupportedCandidateIsAsked(t *testing.T) {
	s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		completion(w, `{"verdict": "equivalent", "equivalence": "strong", "reason": "the CTE is unused"}`)
	})
	cand := "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r WHERE n < 3) SELECT name FROM dogs"
	off := judgeWith(t, unknownRef, cand, nil)
	on := judgeWith(t, unknownRef, cand, judge(t, s, nil))
	if on.Label != equivalence.Unknown || on.LLM == nil || on.LLM.Answer != equivalence.OpinionEquivalent || on.Score <= off.Score || on.Score >= 0.9 {
		t.Errorf("unsupported candidate: %s %g -> %s %g, opinion %+v", off.Label, off.Score, on.Label, on.Score, on.LLM)
	}
	if !strings.Contains(s.seen[0].Messages[1].Content, "unsupported syntax") {
		t.Errorf("prompt does not say the planner could not take the candidate:\n%s", s.seen[0].Messages[1].Content)
	}
	// A candidate naming a column the schema lacks is not asked about.
	s.requests.Store(0)
	v := judgeWith(t, unknownRef, "SELECT no_such_column FROM dogs", judge(t, s, nil))
	if v.LLM != nil || s.requests.Load() != 0 {
		t.Errorf("a candidate that does not plan was asked about: %+v", v.LLM)
	}
}

func TestOnlyUnknownPairsAreAsked(t *testing.T) {
	s := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		completion(w, `{"verdict": "not_equivalent", "reason": "x"}`)
	})
	j := judge(t, s, nil)
	v := judgeWith(t, provedRef, provedCand, j)
	if v.Label != equivalence.Equivalent || v.LLM != nil || s.requests.Load() != 0 {
		t.Errorf("a proved pair: label %s, opinion %+v, %d requests; want no question asked", v.Label, v.LLM, s.requests.Load())
	}
	off := judgeWith(t, unknownRef, unknownCand, nil)
	on := judgeWith(t, unknownRef, unknownCand, j)
	if on.LLM == nil || on.LLM.Answer != equivalence.OpinionNotEquivalent || on.Score >= off.Score || on.Score < 0.05 || on.Label != equivalence.Unknown {
		t.Errorf("not_equivalent opinion: score %g -> %g, label %s, opinion %+v", off.Score, on.Score, on.Label, on.LLM)
	}
}

// Every failure mode degrades to the verdict without the model.
func TestFailuresDegrade(t *testing.T) {
	off := judgeWith(t, unknownRef, unknownCand, nil)
	for _, tc := range []struct {
		name     string
		reply    func(n int, w http.ResponseWriter, r *http.Request)
		mod      func(*Config)
		wantErr  error
		wantNote string
		requests int32 // -1: any
	}{
		{"malformed JSON", func(_ int, w http.ResponseWriter, _ *http.Request) {
			completion(w, `{"verdict": "equivalent", "reason": `)
		}, nil, ErrMalformed, "malformed answer", 3},
		{"no JSON at all", func(_ int, w http.ResponseWriter, _ *http.Request) { completion(w, "They look equivalent to me.") }, nil, ErrMalformed, "no JSON object", 3},
		{"unknown verdict word", func(_ int, w http.ResponseWriter, _ *http.Request) {
			completion(w, `{"verdict": "maybe", "reason": "?"}`)
		}, nil, ErrMalformed, `verdict "maybe"`, 3},
		{"not a chat completion", func(_ int, w http.ResponseWriter, _ *http.Request) { w.Write([]byte("<html>proxy error</html>")) }, nil, nil, "not a chat completion", 3},
		{"no choices", func(_ int, w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{"choices": []}`)) }, nil, nil, "no choices", 3},
		{"HTTP 401 is not retried", func(_ int, w http.ResponseWriter, _ *http.Request) {
			http.Error(w, `{"error": "bad key"}`, http.StatusUnauthorized)
		}, nil, nil, "HTTP 401", 3},
		{"HTTP 500 retried then given up", func(_ int, w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "overloaded", http.StatusInternalServerError)
		}, func(c *Config) { c.Retries = 2 }, nil, "HTTP 500", 9},
		{"429 past its retries", func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}, func(c *Config) { c.Retries = 1 }, nil, "HTTP 429", 6},
		{"timeout", func(_ int, _ http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // answers only when the client gives up
		}, func(c *Config) { c.Timeout = 50 * time.Millisecond }, context.DeadlineExceeded, "deadline exceeded", 3},
		{"429 whose Retry-After outlasts the budget", func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Retry-After", "3600")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}, func(c *Config) { c.Timeout = 100 * time.Millisecond }, context.DeadlineExceeded, "waiting to retry", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.reply)
			j := judge(t, s, tc.mod)
			_, err := j.Advise(context.Background(), equivalence.AdviceRequest{Schema: schema, Reference: unknownRef, Candidate: unknownCand, Verdict: off})
			if err == nil || !errors.Is(err, ErrNoAnswer) || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) {
				t.Errorf("Advise error %v, want ErrNoAnswer wrapping %v", err, tc.wantErr)
			}
			before := s.requests.Load()
			v := judgeWith(t, unknownRef, unknownCand, j)
			sameVerdict(t, v, off)
			if len(v.Notes) == 0 || !strings.Contains(v.Notes[len(v.Notes)-1], tc.wantNote) {
				t.Errorf("notes %q, want one containing %q", v.Notes, tc.wantNote)
			}
			if before != tc.requests {
				t.Errorf("%d requests for one pair, want %d", before, tc.requests)
			}
			// A failure is not cached: the next judgement asks again.
			if s.requests.Load() != 2*before {
				t.Errorf("requests %d after a second judgement, want %d", s.requests.Load(), 2*before)
			}
		})
	}
}

// Rate limits are retried with backoff and the answer then counts; a
// Retry-After header sets the wait.
func Test429Backoff(t *testing.T) {
	var mu sync.Mutex
	at := map[string][]time.Time{}
	s := newServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		at["all"] = append(at["all"], time.Now())
		mu.Unlock()
		if n < 2 {
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		completion(w, `{"verdict": "equivalent", "equivalence": "weak", "reason": "order"}`)
	})
	j := judge(t, s, func(c *Config) { c.Samples = 1; c.Retries = 3; c.Backoff = 20 * time.Millisecond })
	op, err := j.Advise(context.Background(), equivalence.AdviceRequest{Schema: schema, Reference: unknownRef, Candidate: unknownCand})
	if err != nil {
		t.Fatal(err)
	}
	if op.Answer != equivalence.OpinionEquivalent || op.Strength != "weak" || op.Votes != 1 || s.requests.Load() != 3 {
		t.Fatalf("opinion %+v after %d requests, want equivalent (weak) on the third", op, s.requests.Load())
	}
	ts := at["all"]
	if d1, d2 := ts[1].Sub(ts[0]), ts[2].Sub(ts[1]); d1 < 20*time.Millisecond || d2 < 40*time.Millisecond {
		t.Errorf("waits %v then %v, want at least 20ms then 40ms (doubling backoff)", d1, d2)
	}
}

// The judge's own deadline bounds the adviser too: a short one ends the
// question, the verdict comes back without an opinion and without error.
func TestJudgeDeadlineBoundsTheAdviser(t *testing.T) {
	s := newServer(t, func(_ int, _ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	j := judge(t, s, func(c *Config) { c.Timeout = time.Hour })
	off := judgeWith(t, unknownRef, unknownCand, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	v, err := equivalence.Judge(ctx, schema, unknownRef, unknownCand, equivalence.Options{Adviser: j, Refute: equivalence.RefuteOptions{Off: true}}) // structure alone: the pair stays unknown
	if err != nil {
		t.Fatalf("Judge: %v; a failed opinion must not fail the verdict", err)
	}
	sameVerdict(t, v, off)
}

func TestVote(t *testing.T) {
	a := func(v, e string) answer { return answer{Verdict: v, Equivalence: e} }
	bad := errors.New("bad")
	for _, tc := range []struct {
		name    string
		answers []answer
		errs    []error
		want    string
		votes   int
		strong  string
	}{
		{"unanimous", []answer{a("equivalent", "strong"), a("equivalent", "strong"), a("equivalent", "weak")}, []error{nil, nil, nil}, "equivalent", 3, "strong"},
		{"tie is unsure", []answer{a("equivalent", "strong"), a("not_equivalent", ""), {}}, []error{nil, nil, bad}, "unsure", 0, ""},
		{"failed samples do not vote", []answer{{}, a("not_equivalent", ""), {}}, []error{bad, nil, bad}, "not_equivalent", 1, ""},
		{"weak majority", []answer{a("equivalent", "weak"), a("equivalent", "weak"), a("equivalent", "strong")}, []error{nil, nil, nil}, "equivalent", 3, "weak"},
	} {
		op, ok := vote(tc.answers, tc.errs)
		if !ok || op.Answer != tc.want || op.Votes != tc.votes || op.Strength != tc.strong || op.Samples != len(tc.answers) {
			t.Errorf("%s: %+v, want %s %d/%d %q", tc.name, op, tc.want, tc.votes, len(tc.answers), tc.strong)
		}
	}
	if _, ok := vote([]answer{{}}, []error{bad}); ok {
		t.Error("no usable answer gave an opinion")
	}
}

func TestNewValidates(t *testing.T) {
	for _, c := range []Config{
		{},
		{Endpoint: "http://x"},
		{Endpoint: "ftp://x", Model: "m"},
		{Endpoint: "http://x", Model: "m", Samples: 99},
	} {
		if _, err := New(c); err == nil {
			t.Errorf("New(%+v): no error", c)
		}
	}
}
