package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// serveProfiles are serve's profiling flags: a CPU profile and an
// execution trace for the whole run, and block and mutex profiles written
// at shutdown. They exist to find where the relay spends time under load
// (docs/bench-proxy.md); each costs CPU while on, so none is on by
// default.
type serveProfiles struct {
	cpu, trace, block, mutex, memory *string
}

func addServeProfiles(fs *flag.FlagSet) *serveProfiles {
	return &serveProfiles{
		cpu:    fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file at shutdown (go tool pprof)"),
		trace:  fs.String("trace", "", "write an execution trace of the whole run to this file (go tool trace)"),
		block:  fs.String("blockprofile", "", "record blocking events and write the block profile to this file at shutdown"),
		mutex:  fs.String("mutexprofile", "", "record mutex contention and write the mutex profile to this file at shutdown"),
		memory: fs.String("memprofile", "", "write a heap profile (allocations of the whole run, sampled, and what is live) to this file at shutdown"),
	}
}

// start turns on what was asked for; the returned stop writes the
// profiles and reports the first error.
func (p *serveProfiles) start() (stop func() error, err error) {
	var stops []func() error
	stop = func() error {
		var errs []error
		for i := len(stops) - 1; i >= 0; i-- {
			errs = append(errs, stops[i]())
		}
		return errors.Join(errs...)
	}
	file := func(flagName, path string) (*os.File, error) {
		f, err := os.Create(path)
		if err != nil {
			return nil, fmt.Errorf("serve: --%s: %w", flagName, err)
		}
		return f, nil
	}
	if *p.cpu != "" {
		f, err := file("cpuprofile", *p.cpu)
		if err != nil {
			return stop, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return stop, fmt.Errorf("serve: --cpuprofile: %w", err)
		}
		stops = append(stops, func() error { pprof.StopCPUProfile(); return f.Close() })
	}
	if *p.trace != "" {
		f, err := file("trace", *p.trace)
		if err != nil {
			return stop, err
		}
		if err := trace.Start(f); err != nil {
			f.Close()
			return stop, fmt.Errorf("serve: --trace: %w", err)
		}
		stops = append(stops, func() error { trace.Stop(); return f.Close() })
	}
	for _, prof := range []struct {
		flag, name, path string
		on, off          func()
	}{
		{"blockprofile", "block", *p.block, func() { runtime.SetBlockProfileRate(1) }, func() { runtime.SetBlockProfileRate(0) }},
		{"mutexprofile", "mutex", *p.mutex, func() { runtime.SetMutexProfileFraction(1) }, func() { runtime.SetMutexProfileFraction(0) }},
		// The runtime samples allocations always (MemProfileRate): nothing
		// to turn on. A heap profile shows the heap as of the last
		// collection; one at shutdown brings in what came since.
		{"memprofile", "allocs", *p.memory, func() {}, runtime.GC},
	} {
		if prof.path == "" {
			continue
		}
		f, err := file(prof.flag, prof.path)
		if err != nil {
			return stop, err
		}
		prof.on()
		stops = append(stops, func() error {
			defer f.Close()
			prof.off()
			if err := pprof.Lookup(prof.name).WriteTo(f, 0); err != nil {
				return fmt.Errorf("serve: --%s: %w", prof.flag, err)
			}
			return nil
		})
	}
	return stop, nil
}
