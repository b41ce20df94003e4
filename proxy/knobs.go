package proxy

import (
	"time"
)

// testingKnobs holds hooks that only tests set (through export_test.go).
type testingKnobs struct {
	// bufferSize overrides the per-direction read/write buffer size.
	bufferSize int
	// onConnEnd is called with each connection's final error (nil for a
	// clean end) after it is closed.
	onConnEnd func(id uint64, err error)
	// onFastRelayEnd is called when a connection leaves the fast relay,
	// with demoted true if it goes on on the goroutine relay.
	onFastRelayEnd func(id uint64, demoted bool)
	// now replaces time.Now for the admin console's login throttle.
	now func() time.Time
}
