// Package sweep runs parameter sweeps: the instances of a job whose
// parameters take lists or ranges (jobs.Sweep), each an ordinary job placed
// on free hosts of the inventory as they free up, at most K at once, failed
// ones retried, every attempt a line of a job log (as GNU parallel's
// --joblog), so that a sweep interrupted by Ctrl-C or a crash resumes with
// only its missing and failed instances (as Slurm and OAR array jobs are
// resubmitted), and a results table of parameters × outcome, iterations,
// residual and time. It knows the engine only through the RunFunc it is
// handed: what runs one job.
package sweep
