package proxy

// testingKnobs holds hooks that only tests set (through export_test.go).
type testingKnobs struct {
	// bufferSize overrides the per-direction read/write buffer size.
	bufferSize int
	// onConnEnd is called with each connection's final error (nil for a
	// clean end) after it is closed.
	onConnEnd func(id uint64, err error)
}
