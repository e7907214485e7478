// Package poisson is the tutorial application of gridtui: −Δu = f on
// (0,1)³ with a known exact solution, Jacobi iterations, the grid split in
// a×b×c blocks with up to six face neighbours each (registered as
// "poisson"). SerialSweep and SerialSolve are its plain serial reference
// (the specification, pinned against a C reference); Block is one node's
// share with ghost layers, swept by a gridapp.Pool of the node's cores, bit
// for bit equal to the reference in synchronous runs. Its report gives the
// discretisation error against the exact solution, which the 7-point
// stencil reproduces at the grid points: the error measures the iteration.
package poisson
