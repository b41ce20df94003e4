// Package cache is a bounded, thread-safe LRU cache for plan artifacts,
// limited both by entry count and by approximate size in bytes.
//
// Cache is a mutex-guarded wrapper around an unsynchronised core built on
// github.com/hashicorp/golang-lru/v2/simplelru. User callbacks (SizeFunc,
// OnEvict) never run while the lock is held, so they may call back into
// the cache.
package cache

import (
	"errors"
	"fmt"
	"sync"
)

// ErrOptions reports invalid constructor options.
var ErrOptions = errors.New("cache: invalid options")

// Options configures a Cache.
type Options[K comparable, V any] struct {
	// MaxEntries bounds the number of entries (required, ≥ 1).
	MaxEntries int
	// MaxBytes bounds the sum of SizeFunc over the entries; 0 means no
	// byte bound. A value whose size alone exceeds MaxBytes is not stored.
	MaxBytes int64
	// SizeFunc returns the approximate size of an entry in bytes (≥ 0).
	// Required when MaxBytes > 0; when nil every entry has size 0.
	SizeFunc func(K, V) int64
	// OnEvict, if set, is called for each entry evicted to respect
	// MaxEntries or MaxBytes (not for Remove, Purge or replacement), after
	// the cache's lock has been released, in eviction order.
	OnEvict func(K, V)
}

// Stats is a snapshot of the cache's counters, for metrics.
type Stats struct {
	Hits      uint64 // Get calls that found the key
	Misses    uint64 // Get calls that did not
	Evictions uint64 // entries evicted by the bounds
	Rejected  uint64 // Add calls whose value exceeded MaxBytes on its own
	Entries   int    // current number of entries
	Bytes     int64  // current sum of entry sizes
}

// Cache is a bounded LRU cache safe for concurrent use.
type Cache[K comparable, V any] struct {
	mu      sync.Mutex
	core    *core[K, V]
	size    func(K, V) int64
	onEvict func(K, V)
}

// New returns an empty cache, or an error wrapping ErrOptions.
func New[K comparable, V any](o Options[K, V]) (*Cache[K, V], error) {
	switch {
	case o.MaxEntries < 1:
		return nil, fmt.Errorf("%w: MaxEntries %d < 1", ErrOptions, o.MaxEntries)
	case o.MaxBytes < 0:
		return nil, fmt.Errorf("%w: MaxBytes %d < 0", ErrOptions, o.MaxBytes)
	case o.MaxBytes > 0 && o.SizeFunc == nil:
		return nil, fmt.Errorf("%w: MaxBytes set without SizeFunc", ErrOptions)
	}
	c, err := newCore[K, V](o.MaxEntries, o.MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	return &Cache[K, V]{core: c, size: o.SizeFunc, onEvict: o.OnEvict}, nil
}

// Get returns the value for k and marks it most recently used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.core.get(k)
}

// Peek returns the value for k without touching recency or counters.
func (c *Cache[K, V]) Peek(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.core.peek(k)
}

// Add stores v under k as most recently used, evicting least recently used
// entries as needed. It reports false, storing nothing and dropping any
// older value for k, when v alone is larger than MaxBytes. A negative size
// from SizeFunc counts as 0.
func (c *Cache[K, V]) Add(k K, v V) bool {
	var size int64
	if c.size != nil {
		size = max(c.size(k, v), 0)
	}
	c.mu.Lock()
	ok := c.core.add(k, v, size)
	ev := c.core.takeEvicted()
	c.mu.Unlock()
	if c.onEvict != nil {
		for _, e := range ev {
			c.onEvict(e.key, e.val)
		}
	}
	return ok
}

// Remove deletes k and reports whether it was present.
func (c *Cache[K, V]) Remove(k K) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.core.remove(k)
}

// Purge deletes every entry; counters are kept.
func (c *Cache[K, V]) Purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.core.purge()
}

// Len is the number of entries.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.core.lru.Len()
}

// Stats returns a consistent snapshot of the counters.
func (c *Cache[K, V]) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.core
	return Stats{Hits: k.hits, Misses: k.misses, Evictions: k.evictions, Rejected: k.rejected,
		Entries: k.lru.Len(), Bytes: k.bytes}
}
