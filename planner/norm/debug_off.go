//go:build !pgequivdebug

package norm

// debugChecks is off in ordinary builds; see debug_on.go.
const debugChecks = false
