// Package heat is the heat equation u_t = Δu on (0,1)², u = 0 on the
// boundary, u(0) = sin(πx)·sin(πy), advanced by implicit Euler time steps
// whose linear systems are each solved by Jacobi iterations (registered as
// "heat"): an outer time loop around the inner iterations.
//
// The time loop is the programming model's outer steps (gridapp.Task.Steps
// and gridapp.Stepper): the environment iterates one time step with the
// job's scheme and detector until the detector sees the step's global test
// pass, then every Part keeps its tile as the previous time level
// (Advance) and the next step starts from it. The detectors thus see each
// step's convergence, and a synchronous run equals the serial reference bit
// for bit in every step.
//
// SerialSweep and SerialSolve are the plain serial reference (the
// specification). The tiles, their ghosts and exchanges are the
// structured-grid toolkit's (apps/structured); what is heat's own is the
// step's equation (structured.Jacobi5 with a = r, d = 1 + 4r over the
// previous level), the time loop and its figures. Because u(0) is an eigenvector of the
// 5-point Laplacian, the discrete solution is known exactly
// (u(0)·Decayˢ): the report's error against it measures the iterations.
// With the job's VTI output on, the run writes the series as base.pvd plus
// one base-NNNN.vti per level (WriteSeries), which ParaView opens as one
// time-dependent data set.
package heat
