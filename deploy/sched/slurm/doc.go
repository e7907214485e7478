// Package slurm registers Slurm as the batch launcher "slurm": salloc on a
// site's frontend holds an allocation while its stdin is open, squeue
// shows a waiting job's place in the queue, and srun starts a worker as a
// step of the allocation; inside a job, $SLURM_JOB_NODELIST and
// $SLURM_JOB_CPUS_PER_NODE give the allocation's nodes and cores.
package slurm
