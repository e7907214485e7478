// Package jobs holds job specifications and applications: the obstacle problem
// (serial reference solver, the parallel slab kernel, decomposition), solution
// output, the results store of past runs and the computing-gain tables.
package jobs
