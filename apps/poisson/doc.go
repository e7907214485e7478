// Package poisson is the tutorial application of gridtui: −Δu = f on
// (0,1)³ with a known exact solution, Jacobi iterations, the grid split in
// a×b×c blocks with up to six face neighbours each (registered as
// "poisson"). It is a structured-grid application (apps/structured owns the
// blocks, their ghosts and exchanges); what is its own is the equation
// (h²f, the 7-point kernel structured.Jacobi7) and its figures.
// SerialSweep and SerialSolve are its plain serial reference (the
// specification, pinned against a C reference); synchronous runs equal it
// bit for bit. Its report gives the discretisation error against the exact
// solution, which the 7-point stencil reproduces at the grid points: the
// error measures the iteration.
package poisson
