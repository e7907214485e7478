package slurm

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gridtui/gridtui/deploy/sched"
)

// Name is Slurm's launcher name in sites.toml.
const Name = "slurm"

func init() { sched.RegisterScheduler(Name, slurm{}) }

// slurm is the Slurm scheduler: salloc, squeue, srun, scancel.
type slurm struct{}

func (slurm) Name() string { return "Slurm" }

func (slurm) AllocCommand(nodes string, cores int, opt sched.BatchOptions) string {
	args := []string{"salloc", "--job-name=gridtui", "--nodelist=" + sched.Quote(nodes), "--nodes=" + strconv.Itoa(nodeCount(nodes)),
		"--ntasks-per-node=1"}
	if cores > 0 {
		args = append(args, "--cpus-per-task="+strconv.Itoa(cores))
	}
	if opt.Partition != "" {
		args = append(args, "--partition="+sched.Quote(opt.Partition))
	}
	if opt.Account != "" {
		args = append(args, "--account="+sched.Quote(opt.Account))
	}
	if opt.TimeLimit > 0 {
		args = append(args, "--time="+strconv.Itoa(int((opt.TimeLimit+time.Minute-1)/time.Minute)))
	}
	for _, o := range opt.Options {
		args = append(args, sched.Quote(o))
	}
	// The command salloc runs on the frontend once granted: say so, then
	// hold the allocation until the console closes stdin.
	hold := `echo ` + sched.AllocLine + ` "$SLURM_JOB_ID" "$SLURM_JOB_NODELIST"; exec cat >/dev/null`
	return strings.Join(args, " ") + " sh -c " + sched.Quote(hold)
}

// nodeCount counts the names of a comma-separated list (node sets expanded).
func nodeCount(nodes string) int {
	n, err := sched.ExpandNodeSet(nodes)
	if err != nil {
		return 1
	}
	return len(n)
}

var slurmJobRE = regexp.MustCompile(`(?:job allocation|job) (\d+)`)

func (slurm) JobID(line string) string {
	if m := slurmJobRE.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

func (slurm) StatusCommand(id string) string {
	return "squeue -h -j " + id + " -o '%i|%T|%r|%P'; echo --; squeue -h -t PD -o '%i|%P' --sort=-p,i"
}

// StatusOf parses "ID|STATE|REASON|PARTITION", "--", then the waiting jobs
// in priority order, into the job's state and its place among the waiting
// jobs of its partition.
func (slurm) StatusOf(id string, out []byte) (sched.Pending, error) {
	mine, queue, _ := strings.Cut(string(out), "--")
	f := strings.Split(strings.TrimSpace(mine), "|")
	if len(f) < 4 || f[0] != id {
		return sched.Pending{}, fmt.Errorf("squeue says nothing about job %s", id)
	}
	p := sched.Pending{Job: id, State: f[1], Reason: f[2]}
	pos := 0
	for _, l := range strings.Split(strings.TrimSpace(queue), "\n") {
		qid, part, _ := strings.Cut(strings.TrimSpace(l), "|")
		if part != f[3] {
			continue
		}
		pos++
		if qid == id {
			p.Position = pos
		}
	}
	return p, nil
}

func (slurm) StepCommand(id, node, cmd string) string {
	// --overlap: workers share the allocation's resources with each other;
	// --kill-on-bad-exit: a step whose worker dies ends at once.
	return "srun --jobid=" + id + " --overlap --nodes=1 --ntasks=1 --nodelist=" + sched.Quote(node) +
		" --kill-on-bad-exit=1 sh -c " + sched.Quote(cmd)
}

func (slurm) CancelCommand(id string) string { return "scancel " + id }

func (slurm) RunningCommand() string {
	return `j=$(squeue -h -u "$(id -un)" -n gridtui -o %i 2>/dev/null); if [ -n "$j" ]; then echo $j; exit 0; fi`
}

func (slurm) Starter() string { return "srun" }

// Inside reads SLURM_JOB_ID and SLURM_JOB_NODELIST (a node set,
// "n[1-3,7]"), and the slots from SLURM_JOB_CPUS_PER_NODE ("2(x3),1": the
// CPUs of each node in order, repeated runs compressed) when it is there.
func (slurm) Inside(getenv func(string) string) (sched.Allocation, bool, error) {
	id, list := getenv("SLURM_JOB_ID"), getenv("SLURM_JOB_NODELIST")
	if id == "" || list == "" {
		return sched.Allocation{}, false, nil
	}
	names, err := sched.ExpandNodeSet(list)
	if err != nil {
		return sched.Allocation{}, false, fmt.Errorf("$SLURM_JOB_NODELIST of job %s: %w", id, err)
	}
	a := sched.Allocation{Job: id, Source: "$SLURM_JOB_NODELIST", Nodes: make([]sched.AllocNode, len(names))}
	cpus, err := slurmCPUs(getenv("SLURM_JOB_CPUS_PER_NODE"), len(names))
	if err != nil {
		return sched.Allocation{}, false, fmt.Errorf("$SLURM_JOB_CPUS_PER_NODE of job %s: %w", id, err)
	}
	for i, n := range names {
		a.Nodes[i] = sched.AllocNode{Name: n}
		if cpus != nil {
			a.Nodes[i].Slots = cpus[i]
		}
	}
	return a, true, nil
}

// slurmCPUs expands SLURM_JOB_CPUS_PER_NODE ("2(x3),1") for n nodes; nil
// when s is empty.
func slurmCPUs(s string, n int) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		count, rep := part, "1"
		if c, r, ok := strings.Cut(part, "(x"); ok {
			if !strings.HasSuffix(r, ")") {
				return nil, fmt.Errorf("%q: want CPUS or CPUS(xCOUNT)", part)
			}
			count, rep = c, strings.TrimSuffix(r, ")")
		}
		c, err1 := strconv.Atoi(count)
		r, err2 := strconv.Atoi(rep)
		if err1 != nil || err2 != nil || c < 1 || r < 1 || len(out)+r > n {
			return nil, fmt.Errorf("%q: want CPUS or CPUS(xCOUNT) for %d nodes in all", part, n)
		}
		for range r {
			out = append(out, c)
		}
	}
	if len(out) != n {
		return nil, fmt.Errorf("%q gives %d nodes, the node list %d", s, len(out), n)
	}
	return out, nil
}
