package pbs

import "github.com/gridtui/gridtui/deploy/sched"

// Name is PBS's launcher name in sites.toml.
const Name = "pbs"

func init() {
	sched.RegisterScheduler(Name, pbs{})
}

// pbs is PBS (OpenPBS, PBS Pro, Torque) inside a job: $PBS_NODEFILE lists
// one line per granted slot, and pbs_tmrsh starts a task on a node through
// the job's MoM (with stdin forwarded). gridtui does not ask it for
// allocations: run gridtui in a job (qsub -I -l select=…).
type pbs struct{}

func (pbs) Name() string    { return "PBS" }
func (pbs) Starter() string { return "pbs_tmrsh" }

func (pbs) Inside(getenv func(string) string) (sched.Allocation, bool, error) {
	return sched.InsideNodeFile(getenv, []string{"PBS_JOBID"}, []string{"PBS_NODEFILE"}, sched.NodeFilePerSlot)
}

func (pbs) StepCommand(_, node, cmd string) string {
	return "pbs_tmrsh " + sched.Quote(node) + " " + sched.Quote(cmd)
}
