package tag

import (
	"slices"
	"strings"
	"sync"
)

// readPairs is parsePairs with a memo. An application sends the same tag
// comment with every statement of a shape, and decoding it (URL escapes,
// quoting) cost a third of reading the statement's shape (ReadShape, on
// the fast relay's event loop). The pairs it returns are shared between
// callers: they read them and never change them; their capacity is their
// length, so an append copies.
func readPairs(body string) ([]KV, error) {
	if len(body) > maxMemoBody {
		return parsePairs(body)
	}
	pairsMemo.mu.Lock()
	a, ok := pairsMemo.m[body]
	pairsMemo.mu.Unlock()
	if ok {
		return a.kvs, a.err
	}
	kvs, err := parsePairs(body)
	kvs = slices.Clip(kvs)
	pairsMemo.mu.Lock()
	if pairsMemo.m == nil || len(pairsMemo.m) >= maxMemoBodies {
		pairsMemo.m = make(map[string]memoPairs) // start over rather than track age
	}
	// A clone: body is part of a statement's text, which the key would
	// otherwise keep alive.
	pairsMemo.m[strings.Clone(body)] = memoPairs{kvs: kvs, err: err}
	pairsMemo.mu.Unlock()
	return kvs, err
}

// Bounds of the memo: at most maxMemoBodies comments of at most
// maxMemoBody bytes each (256 KB).
const (
	maxMemoBody   = 1 << 10
	maxMemoBodies = 256
)

var pairsMemo struct {
	mu sync.Mutex
	m  map[string]memoPairs
}

type memoPairs struct {
	kvs []KV
	err error
}
