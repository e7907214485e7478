// Package structured is the structured-grid toolkit of gridtui's
// application API (PETSc's DMDA is its anchor): the application gives the
// global grid (1-, 2- or 3-D), the stencil's ghost width, the boundary
// values and the initial state, and writes its local function, a sweep over
// a box of owned points whose ghosts the toolkit has filled; the toolkit
// chooses or accepts the a×b×c decomposition, and provides Define, the
// neighbour graph, the halo packing, the per-core split, Assemble and the
// solution's shape. Jacobi7 and Jacobi5 are its fast kernels (AVX2 on
// amd64), each specified by a plain loop (Jacobi7Ref, Jacobi5Ref) and equal
// to it bit for bit.
package structured
