// Package engine runs iterative jobs across workers: the roles of GRIDHPC
// (submitter, coordinator, worker), the synchronous, asynchronous and hybrid
// schemes, their termination detectors (convergence tokens, activity graph,
// timed sync/async switching) and the telemetry the console displays.
package engine
