// Package report is what a run tells its caller: the Report the submitter
// (package engine) assembles when a run ends — its outcome, every node's
// share, the true residual and the application's own figures and checks,
// the networks and gateways it used, the computing gain (GRIDHPC eq. 2)
// and what package predict expected — and the Snapshot it emits while the
// run goes on. WriteText prints a Report for a terminal, the one place its
// text from outside (a worker's log, a remote error) is made safe. The
// package only describes and prints runs: gathering, measuring and
// recording them is the submitter's.
package report
