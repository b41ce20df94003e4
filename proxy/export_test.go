package proxy

// SetTestingKnobs installs knobs on s and returns a function restoring the
// previous ones. Call it before Serve.
func (s *Server) setTestingKnobs(k testingKnobs) (restore func()) {
	old := s.knobs
	s.knobs = k
	return func() { s.knobs = old }
}

// NewJudgingOff builds the judging observer with judging off (for
// TestFastRelayEligibility). judgingoff_test.go, in package proxy_test,
// sets it: package proxy cannot import proxy/judging, which imports it.
var NewJudgingOff func() (QueryObserver, error)
