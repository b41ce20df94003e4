package judging

import (
	"sync"

	"github.com/pgequiv/pgequiv/cache"
	"github.com/pgequiv/pgequiv/proxy/tag"
)

// A tagged statement whose shape is proved costs the proxy, without
// memos, a libpg_query scan for its comments, a parse and a walk of the
// tree to classify it, a normalization and more scans to lift its
// constants, and a scan of its reference for placeholders: ~100 µs of
// cgo per execution where the proof itself is a map lookup. shapeMemo
// keeps what those work out, per shape (tag.ReadShape: the text but for
// its plain literals' values and its tag comment) and per reference, so
// that an execution of a known shape is read in one pass of the proxy's
// own lexer. Only what does not depend on the literals' values is kept;
// a text without a Shape, or whose shape is not kept, takes the slow
// path as before.
type shapeMemo struct {
	shapes *cache.Cache[string, *shapeEntry]
	refs   *cache.Cache[string, *refEntry]
}

// shapeEntry is what the slow path made of a text of one shape.
type shapeEntry struct {
	// class and why: tag.Split's classification (always ClassQuery for
	// now: other statements are refused or passed over before judging).
	class tag.Class
	why   string
	names []string // tag.Statement.Names
	// param is tag.Parameterize's SQL for the judged text, the text whose
	// proof the cache holds; "" where it has none.
	param string
	// fp and redacted are for the verdict record: the judged text's
	// pg_query fingerprint (which ignores constants' values) and its
	// text with literals hidden, worked out on first use.
	once     sync.Once
	fp       string
	redacted string
}

// refEntry is what a reference's text gives: whether it has
// placeholders to bind ($1, ...), and its text with literals hidden.
type refEntry struct {
	params   bool
	once     sync.Once
	redacted string
}

// Bounds of the memos: a shape is a statement text and a reference may
// be long (a tag carries it whole), hence byte bounds as well.
const (
	shapeMemoEntries = 4096
	shapeMemoBytes   = 8 << 20
	refMemoEntries   = 1024
	refMemoBytes     = 4 << 20
)

func newShapeMemo() *shapeMemo {
	shapes, err := cache.New(cache.Options[string, *shapeEntry]{MaxEntries: shapeMemoEntries, MaxBytes: shapeMemoBytes,
		SizeFunc: func(k string, e *shapeEntry) int64 { return int64(128 + 3*len(k) + len(e.param)) }})
	if err != nil {
		return nil // constant options: cannot fail
	}
	refs, err := cache.New(cache.Options[string, *refEntry]{MaxEntries: refMemoEntries, MaxBytes: refMemoBytes,
		SizeFunc: func(k string, _ *refEntry) int64 { return int64(64 + 2*len(k)) }})
	if err != nil {
		return nil
	}
	return &shapeMemo{shapes: shapes, refs: refs}
}

// statement returns the statement of the shape's text, classified as
// the slow path did for an earlier text of its shape, and that entry;
// ok is false when the shape is not known.
func (m *shapeMemo) statement(sh *tag.Shape) (tag.Statement, *shapeEntry, bool) {
	if m == nil {
		return tag.Statement{}, nil, false
	}
	return m.found(sh, m.shapes.Get)
}

// peek is statement without counting a hit or a miss, or keeping the
// shape recent: ObserveQuick looks before it knows it will answer, and
// counts with touch once it does.
func (m *shapeMemo) peek(sh *tag.Shape) (tag.Statement, *shapeEntry, bool) {
	if m == nil {
		return tag.Statement{}, nil, false
	}
	return m.found(sh, m.shapes.Peek)
}

// touch counts a look-up of sh's shape, as statement does.
func (m *shapeMemo) touch(sh *tag.Shape) {
	if m != nil {
		m.shapes.Get(sh.Key)
	}
}

// found is the statement of sh's text, as lookup finds its shape.
func (m *shapeMemo) found(sh *tag.Shape, lookup func(string) (*shapeEntry, bool)) (tag.Statement, *shapeEntry, bool) {
	e, ok := lookup(sh.Key)
	if !ok {
		return tag.Statement{}, nil, false
	}
	st := sh.Stmt
	st.Class, st.Why, st.Names = e.class, e.why, e.names
	return st, e, true
}

// learn keeps what the slow path made of sh's text (stmts, from
// tag.Split) where it holds for every text of the shape (tag.Shape.Holds).
func (m *shapeMemo) learn(sh *tag.Shape, stmts []tag.Statement) {
	if m == nil {
		return
	}
	param, ok := sh.Holds(stmts)
	if !ok {
		return
	}
	m.shapes.Add(sh.Key, &shapeEntry{class: stmts[0].Class, why: stmts[0].Why, names: stmts[0].Names, param: param})
}

// record returns the judged text's fingerprint and redacted text.
func (e *shapeEntry) record(judged string) (fp, redacted string) {
	e.once.Do(func() {
		e.fp, e.redacted = queryFingerprint(judged), redactLiterals(judged)
	})
	return e.fp, e.redacted
}

// ref returns the memo of reference ref.
func (m *shapeMemo) ref(ref string) *refEntry {
	if m == nil {
		return &refEntry{params: tag.HasParams(ref)}
	}
	if e, ok := m.refs.Get(ref); ok {
		return e
	}
	e := &refEntry{params: tag.HasParams(ref)}
	m.refs.Add(ref, e)
	return e
}

// redactedText returns ref's text with its literals hidden.
func (e *refEntry) redactedText(ref string) string {
	e.once.Do(func() { e.redacted = redactLiterals(ref) })
	return e.redacted
}

// storeCandidate is storeSQL of job's candidate, its literals hidden
// once per shape.
func (j *Judging) storeCandidate(job *judgeJob) string {
	if job.shape != nil && job.full == nil && !job.set.LogLiterals && len(job.candidate) <= maxStoredSQL {
		_, red := job.shape.record(job.candidate)
		return red
	}
	return j.storeSQL(job.set, job.candidate, job.full)
}

// storeReference is storeSQL of a reference, its literals hidden once
// per reference.
func (j *Judging) storeReference(set *JudgeSettings, ref string) string {
	if j.shapes != nil && !set.LogLiterals && len(ref) <= maxStoredSQL {
		return j.shapes.ref(ref).redactedText(ref)
	}
	return j.storeSQL(set, ref, nil)
}

// provedNow answers job from the proxy's proofs without leaving the
// caller's goroutine, where the schema is at hand and the pair judged
// first (judge, JudgeBound) is known without the judge: a kept proof is
// the common case of a tagged statement, and a goroutine and channel per
// statement (judgeWithin) cost more than the lookup.
func (j *Judging) provedNow(job *judgeJob) (provedVerdict, bool) {
	schema, ok := j.schemas.peek(&job.set.Schemas, job.sess.Database)
	if !ok {
		return provedVerdict{}, false
	}
	cand := job.candidate
	if !job.direct && j.shapes.ref(job.ref.SQL).params {
		if job.shape == nil {
			return provedVerdict{}, false // Parameterize is the judge goroutine's work
		}
		if job.shape.param != "" {
			cand = job.shape.param
		}
	}
	k := newProofKey(schema, job.set, job.ref.SQL, cand)
	if !j.proofs.has(k) {
		return provedVerdict{}, false
	}
	return j.proofs.getProved(k)
}

// stats is the shape memo's cache counters (zero for a nil memo).
func (m *shapeMemo) stats() cache.Stats {
	if m == nil {
		return cache.Stats{}
	}
	return m.shapes.Stats()
}
