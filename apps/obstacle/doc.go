// Package obstacle is the reference application of gridtui: the 3-D obstacle
// problem of GRIDHPC Sec. VI, written on the programming model
// (apps/gridapp) and registered as "obstacle". It comes as a plain serial
// reference (SerialSweep, SerialSolve: the specification) and as Slab, one
// node's share of the a·b decomposition swept by a persistent pool of cores
// with a vectorised row kernel, bit-for-bit equal to the reference in
// synchronous runs. Around it: Split, Assemble, the true Residual and the
// complementarity check.
package obstacle
