package sched

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// A batch scheduler (Slurm, OAR, Grid Engine, PBS) owns a site's compute
// nodes: SSH to them is refused outside an allocation. gridtui starts one
// worker per node as a step of an allocation — the one it runs in, or one
// it asks the site's frontend for with a command that holds it until its
// standard input closes, so that, like a worker, the allocation cannot
// outlive the console — and releases the allocation when the last worker is
// gone. A scheduler is a handful of command lines and parsers, registered by
// name as database/sql drivers are (prrte's ras/plm components): the
// launcher of a site in sites.toml names one, and adding one edits no
// switch.

// Scheduler is a batch scheduler gridtui can start workers under: it reads
// the allocation gridtui runs in and starts a command on one of its nodes.
type Scheduler interface {
	// Name is the scheduler's name in messages ("Slurm").
	Name() string
	// Inside returns the allocation the environment (getenv) says gridtui
	// runs in; ok is false when it names none. A malformed node file is an
	// error naming its file and line.
	Inside(getenv func(string) string) (a Allocation, ok bool, err error)
	// StepCommand runs cmd on node inside allocation id, with stdin and
	// stdout forwarded (the worker's boot and hello).
	StepCommand(id, node, cmd string) string
	// Starter is the program StepCommand runs (srun, oarsh, qrsh,
	// pbs_tmrsh): an inventory read from an allocation starts its workers
	// over SSH when this host has no such program.
	Starter() string
}

// Allocator is a Scheduler that can also be asked, on a site's frontend,
// for an allocation of given nodes ([site.batch] in sites.toml).
type Allocator interface {
	Scheduler
	// AllocCommand asks for exactly nodes, with cores cores each (0: the
	// scheduler's default), and opt; once granted it prints AllocLine, the
	// job id and the comma-separated node list on stdout, then holds the
	// allocation until its stdin closes.
	AllocCommand(nodes string, cores int, opt BatchOptions) string
	// JobID finds the job id in a line the allocation command writes on
	// stderr while it waits ("" if the line names none).
	JobID(line string) string
	// StatusCommand prints what StatusOf parses about a waiting job.
	StatusCommand(id string) string
	StatusOf(id string, out []byte) (Pending, error)
	// CancelCommand releases allocation id.
	CancelCommand(id string) string
	// RunningCommand prints the ids of the user's allocations that gridtui
	// asked for and that still run; with no such job, or no scheduler
	// command here, it prints nothing and does not fail. When it prints
	// ids, it exits: what follows it in a command line runs only when
	// there is none.
	RunningCommand() string
}

// AllocLine starts the line an allocation command prints once granted:
// "gridtui-allocation ID NODELIST".
const AllocLine = "gridtui-allocation"

// Allocation is a batch allocation gridtui runs in, as its scheduler's
// environment describes it.
type Allocation struct {
	Scheduler string // the registered name ("oar")
	Job       string // the job id ("" when the environment names none)
	// Source says what was read: "$SLURM_JOB_NODELIST",
	// "$OAR_NODEFILE (/var/lib/oar/42)".
	Source string
	Nodes  []AllocNode // in the order the scheduler lists them
}

// AllocNode is one node of an allocation and the slots it holds there.
type AllocNode struct {
	Name  string
	Slots int // cores granted on the node (0: unknown)
}

// Names returns the allocation's node names, in order.
func (a Allocation) Names() []string {
	names := make([]string, len(a.Nodes))
	for i, n := range a.Nodes {
		names[i] = n.Name
	}
	return names
}

// Pending is what the scheduler says about an allocation that waits.
type Pending struct {
	Job    string
	State  string // PENDING, CONFIGURING, Waiting, …
	Reason string // the scheduler's reason: Resources, Priority, …
	// Position is the job's place among the partition's waiting jobs
	// (1: next), 0 when unknown.
	Position int
}

// String is what the console and the terminal show.
func (p Pending) String() string {
	s := fmt.Sprintf("job %s %s", p.Job, strings.ToLower(p.State))
	if p.Reason != "" && p.Reason != "None" {
		s += " (" + p.Reason + ")"
	}
	if p.Position > 0 {
		s += fmt.Sprintf(", position %d in the queue", p.Position)
	}
	return s
}

// BatchOptions are a batch site's allocation options ([site.batch] in
// sites.toml).
type BatchOptions struct {
	Partition string // Slurm's partition, OAR's, PBS's and Grid Engine's queue
	Account   string
	TimeLimit time.Duration // 0: the partition's default
	// Properties select nodes by their properties where the scheduler has
	// them (OAR's -p "gpu='YES'").
	Properties string
	Options    []string // extra options, passed as they are
}

var schedulers = struct {
	sync.RWMutex
	byName map[string]Scheduler
	order  []string // detection order: registration order
}{byName: map[string]Scheduler{}}

// RegisterScheduler makes a scheduler available as launcher name in
// sites.toml, and its allocations detected inside one. It panics if name is
// registered twice or is a built-in launcher (ssh, local): both are
// programmer errors, as in database/sql.Register.
func RegisterScheduler(name string, s Scheduler) {
	schedulers.Lock()
	defer schedulers.Unlock()
	if s == nil {
		panic("deploy: RegisterScheduler of a nil scheduler")
	}
	if name == "ssh" || name == "local" || name == "" {
		panic("deploy: RegisterScheduler of a built-in launcher name")
	}
	if _, dup := schedulers.byName[name]; dup {
		panic("deploy: RegisterScheduler called twice for one name")
	}
	schedulers.byName[name] = s
	schedulers.order = append(schedulers.order, name)
}

// SchedulerFor returns the scheduler registered as launcher l, or nil.
func SchedulerFor(l string) Scheduler {
	schedulers.RLock()
	defer schedulers.RUnlock()
	return schedulers.byName[l]
}

// AllocatorFor returns the scheduler of launcher l when it can be asked for
// allocations, or nil.
func AllocatorFor(l string) Allocator {
	a, _ := SchedulerFor(l).(Allocator)
	return a
}

// Schedulers returns the registered launcher names, sorted.
func Schedulers() []string {
	schedulers.RLock()
	defer schedulers.RUnlock()
	names := slices.Clone(schedulers.order)
	slices.Sort(names)
	return names
}

// Names lists every launcher sites.toml accepts, for messages:
// "ssh, local, oar or slurm".
func Names() string {
	names := []string{string("ssh"), string("local")}
	for _, l := range Schedulers() {
		names = append(names, string(l))
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// DetectAllocation returns the first allocation a registered scheduler
// finds in the environment (getenv), in registration order; ok is false
// when gridtui runs in none. An error (a malformed node file) names the
// scheduler and the file.
func DetectAllocation(getenv func(string) string) (a Allocation, ok bool, err error) {
	schedulers.RLock()
	order := slices.Clone(schedulers.order)
	schedulers.RUnlock()
	for _, name := range order {
		a, ok, err := SchedulerFor(name).Inside(getenv)
		if err != nil {
			return Allocation{}, false, fmt.Errorf("deploy: %s allocation: %w", SchedulerFor(name).Name(), err)
		}
		if ok {
			a.Scheduler = name
			return a, true, nil
		}
	}
	return Allocation{}, false, nil
}

// Quote quotes s as one word of a POSIX shell command line, for the
// commands a scheduler builds.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
