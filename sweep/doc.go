// Package sweep runs parameter sweeps: one job per combination of the
// values of some parameters (`--sweep n=32,48,64`), each an ordinary run of
// any application, as GNU parallel, Slurm job arrays and OAR array jobs
// run a bag of independent tasks. Run places the instances as slots free
// up (a throttle of at most K at once), retries failed instances, appends
// every attempt to a job log (JSON lines), resumes from that log (only the
// missing and failed instances run again, each with the reason it is
// rerun), reports progress with an ETA, and returns the results table of
// parameters × outcome, iterations, residual and time (WriteCSV,
// WriteJSON).
package sweep
