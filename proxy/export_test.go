package proxy

// SetTestingKnobs installs knobs on s and returns a function restoring the
// previous ones. Call it before Serve.
func (s *Server) setTestingKnobs(k testingKnobs) (restore func()) {
	old := s.knobs
	s.knobs = k
	return func() { s.knobs = old }
}

// setTestingKnobs installs knobs on j and returns a function restoring the
// previous ones. Call it before the first query.
func (j *Judging) setTestingKnobs(k judgingKnobs) (restore func()) {
	old := j.knobs
	j.knobs = k
	return func() { j.knobs = old }
}
