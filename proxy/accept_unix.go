package proxy

import "syscall"

// errTooManyFiles is retried by Serve's accept loop.
var errTooManyFiles = syscall.EMFILE
