// Package sparse solves A x = b for a square sparse matrix A read from a
// Matrix Market file (the format users have; Read), with b = A·𝟙 so that
// the exact solution x = 𝟙 measures the iteration (registered as "sparse").
//
// The rows are split into contiguous balanced blocks, one per node
// (Partitioned); two blocks neighbour when a row of one references a
// column of the other, so the neighbour graph comes from the sparsity
// pattern and is in general no chain. A block sends each neighbour exactly
// the x entries that neighbour's rows reference (possibly none, when the
// pattern couples them one way only), and receives into a halo laid out the
// same way on both sides. The method is block Jacobi: in each block either
// one Jacobi sweep ("jacobi", on all the node's cores) or one Gauss-Seidel
// sweep over the block's rows in order ("gauss-seidel", on one core, the
// rows depending on each other), the other blocks' entries taken from the
// previous iterate.
//
// SerialSweep and SerialSolve are the plain serial reference of both
// methods (for Gauss-Seidel it takes the blocks, which change the method); a
// synchronous run equals it bit for bit. Asynchronous iterations converge
// when the Jacobi matrix J has ρ(|J|) < 1, which a strictly or a weakly and
// irreducibly diagonally dominant A guarantees (Dominance); on any other
// matrix the application refuses the asynchronous scheme, and the hybrid
// one across clusters, with the reason (App.CheckScheme), unless the force
// parameter is set. Every node opens the matrix file itself: the submitter
// makes a relative path absolute (matrix is a gridapp.FileParam), and the
// file must exist at that path on every node's host.
package sparse
