package build

import (
	lru "github.com/hashicorp/golang-lru/v2"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// The judge plans one query text several times: under the declared
// schema, under a schema with an assumption added (SQLite's primary keys
// NOT NULL), and again as the executor's plan for the counterexample
// search. Parsing (the C parser, then decoding its protobuf) is a tenth
// of eval's time, and a tree depends on the text alone, so the latest
// trees are kept by text. The builder only reads a tree
// (TestBuildLeavesParseTreeAlone), which makes one tree safe to share
// between concurrent builds.
const (
	// parseCacheEntries bounds the trees kept: a judgement's re-plans
	// come close together.
	parseCacheEntries = 64
	// parseCacheMaxText bounds the text of a tree kept: long queries
	// are rare and their trees large.
	parseCacheMaxText = 8 << 10
)

var parseCache, _ = lru.New[string, *pg.ParseResult](parseCacheEntries)

// cachedParse returns text's tree from the cache, or nil.
func cachedParse(text string) *pg.ParseResult {
	if len(text) > parseCacheMaxText {
		return nil
	}
	t, _ := parseCache.Get(text)
	return t
}

// rememberParse keeps a successfully parsed tree.
func rememberParse(text string, t *pg.ParseResult) {
	if len(text) <= parseCacheMaxText && t != nil {
		parseCache.Add(text, t)
	}
}
