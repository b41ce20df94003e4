package cache

import (
	"crypto/sha256"
	"encoding/hex"
)

// Fingerprint is a SHA-256 digest identifying a schema or a normalized plan.
type Fingerprint [sha256.Size]byte

// FingerprintOf hashes b.
func FingerprintOf(b []byte) Fingerprint { return sha256.Sum256(b) }

// String is the hex form of the first 8 bytes, for logs.
func (f Fingerprint) String() string { return hex.EncodeToString(f[:8]) }

// PlanKey identifies a plan artifact: the same SQL can plan differently
// under another schema or dialect, so all three are part of the key.
type PlanKey struct {
	Schema  Fingerprint
	Dialect string
	Plan    Fingerprint
}

// PlanCache caches artifacts of type V by PlanKey.
type PlanCache[V any] = Cache[PlanKey, V]
