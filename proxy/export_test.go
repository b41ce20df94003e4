package proxy

// SetTestingKnobs installs knobs on s and returns a function restoring the
// previous ones. Call it before Serve.
func (s *Server) setTestingKnobs(k testingKnobs) (restore func()) {
	old := s.knobs
	s.knobs = k
	return func() { s.knobs = old }
}
