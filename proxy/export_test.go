package proxy

import "os"

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

// setWriteKnob makes v write through write (a failing disk) and returns
// a function restoring the plain write.
func (v *VerdictFile) setWriteKnob(write func(f *os.File, b []byte) (int, error)) (restore func()) {
	v.mu.Lock()
	defer v.mu.Unlock()
	old := v.knobs
	v.knobs.write = write
	return func() {
		v.mu.Lock()
		defer v.mu.Unlock()
		v.knobs = old
	}
}
