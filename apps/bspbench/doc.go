// Package bspbench measures the BSP cost model's parameters as Bisseling's
// bspbench does (BSPedupack): r, the flop rate of a DAXPY loop, and g and
// l, from the least-squares line T(h) = l + g·h through the times of
// supersteps that each carry an h-relation of single-word puts. It is a Go
// BSP program (package bsp) registered as the application "bspbench", so
// that it runs on a job's nodes over the run's RMNP links; `gridtui bench
// bsp` runs it. Besides the whole machine's g and l it measures them for
// each network process 0's links use (the pairs (0, q) grouped by the
// network Algorithm 1 chose), with a 95 % confidence interval over
// repetitions: a multi-network grid has one g and one l per network.
package bspbench
