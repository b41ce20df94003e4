package cache

import "github.com/hashicorp/golang-lru/v2/simplelru"

// entry is a cached value with its accounted size.
type entry[V any] struct {
	val  V
	size int64
}

// kv is an evicted pair, handed to the callback after the lock is released.
type kv[K comparable, V any] struct {
	key K
	val V
}

// core is the bounded LRU without locking: every method must be called
// with the owning Cache's mutex held. It never calls user code.
type core[K comparable, V any] struct {
	lru        *simplelru.LRU[K, entry[V]]
	maxEntries int
	maxBytes   int64 // 0: unbounded
	bytes      int64

	hits, misses, evictions, rejected uint64

	evicted []kv[K, V] // evictions since the last takeEvicted
}

func newCore[K comparable, V any](maxEntries int, maxBytes int64) (*core[K, V], error) {
	l, err := simplelru.NewLRU[K, entry[V]](maxEntries, nil)
	if err != nil {
		return nil, err
	}
	return &core[K, V]{lru: l, maxEntries: maxEntries, maxBytes: maxBytes}, nil
}

func (c *core[K, V]) get(k K) (V, bool) {
	e, ok := c.lru.Get(k)
	if ok {
		c.hits++
	} else {
		c.misses++
	}
	return e.val, ok
}

func (c *core[K, V]) peek(k K) (V, bool) {
	e, ok := c.lru.Peek(k)
	return e.val, ok
}

// evictOldest removes the least recently used entry as a bound eviction.
func (c *core[K, V]) evictOldest() {
	k, e, ok := c.lru.RemoveOldest()
	if !ok {
		return
	}
	c.bytes -= e.size
	c.evictions++
	c.evicted = append(c.evicted, kv[K, V]{k, e.val})
}

// add stores k → v of the given size, evicting least recently used entries
// until both bounds hold. A value larger than maxBytes is not stored, and
// any older value under k is dropped with it.
func (c *core[K, V]) add(k K, v V, size int64) bool {
	if old, ok := c.lru.Peek(k); ok {
		c.lru.Remove(k)
		c.bytes -= old.size
	}
	if c.maxBytes > 0 && size > c.maxBytes {
		c.rejected++
		return false
	}
	for c.lru.Len() >= c.maxEntries || (c.maxBytes > 0 && c.bytes+size > c.maxBytes) {
		if c.lru.Len() == 0 {
			break
		}
		c.evictOldest()
	}
	c.lru.Add(k, entry[V]{val: v, size: size})
	c.bytes += size
	return true
}

func (c *core[K, V]) remove(k K) bool {
	e, ok := c.lru.Peek(k)
	if !ok {
		return false
	}
	c.lru.Remove(k)
	c.bytes -= e.size
	return true
}

func (c *core[K, V]) purge() {
	c.lru.Purge()
	c.bytes = 0
}

func (c *core[K, V]) takeEvicted() []kv[K, V] {
	ev := c.evicted
	c.evicted = nil
	return ev
}
