package deploy

func init() {
	RegisterScheduler(LauncherSGE, gridEngine{})
	RegisterScheduler(LauncherPBS, pbs{})
}

// gridEngine is Grid Engine (Son of Grid Engine, Altair's, Open Cluster
// Scheduler) inside a parallel-environment job: $PE_HOSTFILE lists the
// granted hosts and slots, and qrsh -inherit starts a task on one of them
// under the job (with stdin forwarded). gridtui does not ask it for
// allocations: run gridtui in a job (qsub -pe … or qrsh -pe …).
type gridEngine struct{}

func (gridEngine) Name() string    { return "Grid Engine" }
func (gridEngine) Starter() string { return "qrsh" }

func (gridEngine) Inside(getenv func(string) string) (Allocation, bool, error) {
	return insideNodeFile(getenv, []string{"JOB_ID"}, []string{"PE_HOSTFILE"}, NodeFilePE)
}

func (gridEngine) StepCommand(_, node, cmd string) string {
	return "qrsh -inherit " + shQuote(node) + " " + shQuote(cmd)
}

// pbs is PBS (OpenPBS, PBS Pro, Torque) inside a job: $PBS_NODEFILE lists
// one line per granted slot, and pbs_tmrsh starts a task on a node through
// the job's MoM (with stdin forwarded). gridtui does not ask it for
// allocations: run gridtui in a job (qsub -I -l select=…).
type pbs struct{}

func (pbs) Name() string    { return "PBS" }
func (pbs) Starter() string { return "pbs_tmrsh" }

func (pbs) Inside(getenv func(string) string) (Allocation, bool, error) {
	return insideNodeFile(getenv, []string{"PBS_JOBID"}, []string{"PBS_NODEFILE"}, NodeFilePerSlot)
}

func (pbs) StepCommand(_, node, cmd string) string {
	return "pbs_tmrsh " + shQuote(node) + " " + shQuote(cmd)
}
