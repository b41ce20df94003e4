//go:build pgequivdebug

package norm

// debugChecks makes Normalize verify invariants of its result (acyclic
// column definitions) in builds tagged pgequivdebug.
const debugChecks = true
