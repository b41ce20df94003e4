// Package autodiff is a small tape-based reverse-mode differentiator over
// dense row-major matrices, specialised to the operations the pgequiv graph
// matching network uses.
//
// A Tape records operations as they run. Every value is a *Node whose Val is
// a contiguous *mat.Dense owned by the tape (or, for parameters, by the
// Param). Calling Backward on a 1×1 node propagates gradients to every node
// that depends on a Param; AddParamGrads then folds the per-tape parameter
// gradients into a Grads accumulator, which an optimiser such as Adam reads.
//
// Buffer ownership: matrices held by a Node stay valid until the tape's next
// Reset. A tape is not safe for concurrent use; use one tape per goroutine.
// Params may be shared by many tapes concurrently as long as nothing writes
// them (the optimiser step must not overlap forward passes).
//
// Shapes are checked at the start of every operation. A mismatch is a
// programming error and panics with one of the gmn:-prefixed sentinel
// errors below; public APIs built on this package validate their inputs and
// return errors instead.
package autodiff
