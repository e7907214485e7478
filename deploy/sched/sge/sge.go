package sge

import "github.com/gridtui/gridtui/deploy/sched"

// Name is Grid Engine's launcher name in sites.toml.
const Name = "sge"

func init() {
	sched.RegisterScheduler(Name, gridEngine{})
}

// gridEngine is Grid Engine (Son of Grid Engine, Altair's, Open Cluster
// Scheduler) inside a parallel-environment job: $PE_HOSTFILE lists the
// granted hosts and slots, and qrsh -inherit starts a task on one of them
// under the job (with stdin forwarded). gridtui does not ask it for
// allocations: run gridtui in a job (qsub -pe … or qrsh -pe …).
type gridEngine struct{}

func (gridEngine) Name() string    { return "Grid Engine" }
func (gridEngine) Starter() string { return "qrsh" }

func (gridEngine) Inside(getenv func(string) string) (sched.Allocation, bool, error) {
	return sched.InsideNodeFile(getenv, []string{"JOB_ID"}, []string{"PE_HOSTFILE"}, sched.NodeFilePE)
}

func (gridEngine) StepCommand(_, node, cmd string) string {
	return "qrsh -inherit " + sched.Quote(node) + " " + sched.Quote(cmd)
}
