package cache

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

func strSize(_ int, v string) int64 { return int64(len(v)) }

type op struct {
	kind string // "add", "get", "remove", "purge"
	key  int
	val  string
	want bool // result of add/get/remove
}

func TestCacheTable(t *testing.T) {
	cases := []struct {
		name        string
		opts        Options[int, string]
		ops         []op
		wantKeys    []int // present at the end (checked with Peek)
		wantGone    []int
		wantStats   Stats
		wantEvicted []int // keys passed to OnEvict, in order
	}{
		{
			name: "count bound evicts least recently used",
			opts: Options[int, string]{MaxEntries: 2},
			ops: []op{
				{"add", 1, "a", true}, {"add", 2, "b", true},
				{"get", 1, "", true}, // 2 is now oldest
				{"add", 3, "c", true},
				{"get", 2, "", false},
			},
			wantKeys: []int{1, 3}, wantGone: []int{2},
			wantStats:   Stats{Hits: 1, Misses: 1, Evictions: 1, Entries: 2},
			wantEvicted: []int{2},
		},
		{
			name: "byte bound evicts several",
			opts: Options[int, string]{MaxEntries: 10, MaxBytes: 10, SizeFunc: strSize},
			ops: []op{
				{"add", 1, "aaaa", true}, {"add", 2, "bbbb", true}, {"add", 3, "cc", true}, // 10 bytes
				{"add", 4, "dddddd", true}, // needs 6: evicts 1 and 2
			},
			wantKeys: []int{3, 4}, wantGone: []int{1, 2},
			wantStats:   Stats{Evictions: 2, Entries: 2, Bytes: 8},
			wantEvicted: []int{1, 2},
		},
		{
			name: "replacement re-accounts size",
			opts: Options[int, string]{MaxEntries: 10, MaxBytes: 10, SizeFunc: strSize},
			ops: []op{
				{"add", 1, "aaaa", true}, {"add", 2, "bbbb", true},
				{"add", 1, "a", true}, // 5 bytes now
				{"add", 3, "ccccc", true},
			},
			wantKeys:  []int{1, 2, 3},
			wantStats: Stats{Entries: 3, Bytes: 10},
		},
		{
			name: "oversized value rejected and drops the old value",
			opts: Options[int, string]{MaxEntries: 10, MaxBytes: 4, SizeFunc: strSize},
			ops: []op{
				{"add", 1, "aa", true}, {"add", 2, "bb", true},
				{"add", 1, "toolarge", false},
			},
			wantKeys: []int{2}, wantGone: []int{1},
			wantStats: Stats{Rejected: 1, Entries: 1, Bytes: 2},
		},
		{
			name: "remove and purge are not evictions",
			opts: Options[int, string]{MaxEntries: 3, MaxBytes: 100, SizeFunc: strSize},
			ops: []op{
				{"add", 1, "a", true}, {"add", 2, "b", true},
				{"remove", 1, "", true}, {"remove", 1, "", false},
				{"purge", 0, "", false},
				{"add", 3, "ccc", true},
				{"get", 2, "", false},
			},
			wantKeys: []int{3}, wantGone: []int{1, 2},
			wantStats: Stats{Misses: 1, Entries: 1, Bytes: 3},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var evicted []int
			var c *Cache[int, string]
			tc.opts.OnEvict = func(k int, _ string) {
				evicted = append(evicted, k)
				_ = c.Len() // would deadlock if called under the lock
			}
			var err error
			if c, err = New(tc.opts); err != nil {
				t.Fatal(err)
			}
			for i, o := range tc.ops {
				var got bool
				switch o.kind {
				case "add":
					got = c.Add(o.key, o.val)
				case "get":
					_, got = c.Get(o.key)
				case "remove":
					got = c.Remove(o.key)
				case "purge":
					c.Purge()
				}
				if got != o.want {
					t.Errorf("op %d %s(%d) = %v, want %v", i, o.kind, o.key, got, o.want)
				}
			}
			for _, k := range tc.wantKeys {
				if _, ok := c.Peek(k); !ok {
					t.Errorf("key %d missing", k)
				}
			}
			for _, k := range tc.wantGone {
				if _, ok := c.Peek(k); ok {
					t.Errorf("key %d still present", k)
				}
			}
			if s := c.Stats(); s != tc.wantStats {
				t.Errorf("Stats = %+v, want %+v", s, tc.wantStats)
			}
			if fmt.Sprint(evicted) != fmt.Sprint(tc.wantEvicted) {
				t.Errorf("OnEvict got %v, want %v", evicted, tc.wantEvicted)
			}
		})
	}
}

func TestNewValidates(t *testing.T) {
	cases := []struct {
		name string
		opts Options[int, string]
	}{
		{"zero entries", Options[int, string]{}},
		{"negative bytes", Options[int, string]{MaxEntries: 1, MaxBytes: -1}},
		{"bytes without size", Options[int, string]{MaxEntries: 1, MaxBytes: 10}},
	}
	for _, tc := range cases {
		if _, err := New(tc.opts); !errors.Is(err, ErrOptions) {
			t.Errorf("%s: err = %v, want ErrOptions", tc.name, err)
		}
	}
}

func TestPlanKey(t *testing.T) {
	c, err := New(Options[PlanKey, int]{MaxEntries: 4})
	if err != nil {
		t.Fatal(err)
	}
	s := FingerprintOf([]byte("create table t(a int)"))
	p := FingerprintOf([]byte("Project(Scan t)"))
	c.Add(PlanKey{Schema: s, Dialect: "postgres", Plan: p}, 1)
	if v, ok := c.Get(PlanKey{Schema: FingerprintOf([]byte("create table t(a int)")), Dialect: "postgres", Plan: p}); !ok || v != 1 {
		t.Errorf("equal key lookup = %d, %v", v, ok)
	}
	for _, k := range []PlanKey{{Schema: s, Dialect: "mysql", Plan: p}, {Schema: p, Dialect: "postgres", Plan: s}} {
		if _, ok := c.Get(k); ok {
			t.Errorf("key %v should miss", k)
		}
	}
	if got := s.String(); len(got) != 16 {
		t.Errorf("Fingerprint.String() = %q, want 16 hex digits", got)
	}
}

// Concurrent mixed use keeps the bounds and the accounting exact; run with -race.
func TestConcurrent(t *testing.T) {
	const maxEntries, maxBytes = 50, 400
	var mu sync.Mutex
	evictedBytes := int64(0)
	c, err := New(Options[int, string]{MaxEntries: maxEntries, MaxBytes: maxBytes, SizeFunc: strSize,
		OnEvict: func(_ int, v string) { mu.Lock(); evictedBytes += int64(len(v)); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var added [4]int64
	var gets [4]uint64
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := 0; i < 2000; i++ {
				k := rng.IntN(200) + 1000*w // disjoint keys per worker: no replacement
				if _, ok := c.Peek(k); ok || rng.IntN(2) == 0 {
					c.Get(k)
					gets[w]++
					continue
				}
				v := string(make([]byte, 1+rng.IntN(20)))
				if c.Add(k, v) {
					added[w] += int64(len(v))
				}
				if s := c.Stats(); s.Entries > maxEntries || s.Bytes > maxBytes {
					t.Errorf("bounds violated: %+v", s)
					return
				}
			}
		}()
	}
	wg.Wait()
	s := c.Stats()
	total := added[0] + added[1] + added[2] + added[3]
	if s.Bytes+evictedBytes != total {
		t.Errorf("bytes in cache %d + evicted %d != added %d", s.Bytes, evictedBytes, total)
	}
	if s.Hits+s.Misses != gets[0]+gets[1]+gets[2]+gets[3] {
		t.Errorf("hits+misses = %d, want %d", s.Hits+s.Misses, gets[0]+gets[1]+gets[2]+gets[3])
	}
	if s.Evictions == 0 {
		t.Error("workload never evicted; test is not exercising the bounds")
	}
}
