// Package pbs registers PBS (OpenPBS, PBS Pro, Torque) as the batch
// launcher "pbs", inside a job only: $PBS_NODEFILE gives the allocation's
// nodes (one line per slot), and pbs_tmrsh starts a worker on one of them
// through the job's MoM.
package pbs
