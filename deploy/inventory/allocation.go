package inventory

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"

	"github.com/gridtui/gridtui/deploy/sched"
)

// inAllocation returns the inventory of the allocation gridtui runs in,
// when the environment names one (DetectAllocation); nil when it names
// none. Load uses it where it would use the embedded local grid: inside an
// allocation with no sites.toml, the allocation's hosts are the grid.
func inAllocation() (*Inventory, error) {
	a, ok, err := sched.DetectAllocation(os.Getenv)
	if err != nil || !ok {
		return nil, err
	}
	return AllocationInventory(a, exec.LookPath)
}

// AllocationInventory is an inventory of one site holding allocation a's
// nodes, cores from their slots. Its workers start with the scheduler's
// remote start (srun, oarsh, qrsh -inherit, pbs_tmrsh) when lookPath finds
// it here, else over SSH. Inventory.Source says which allocation was read.
func AllocationInventory(a sched.Allocation, lookPath func(string) (string, error)) (*Inventory, error) {
	s := sched.SchedulerFor(a.Scheduler)
	if s == nil {
		return nil, fmt.Errorf("deploy: allocation of unknown scheduler %q", a.Scheduler)
	}
	site := string(a.Scheduler)
	if a.Job != "" {
		site += "-" + a.Job
	}
	entries := make([]HostfileEntry, len(a.Nodes))
	for i, n := range a.Nodes {
		entries[i] = HostfileEntry{Name: n.Name, Slots: n.Slots}
	}
	text := ImportHostfile(a.Source, site, "nodes", entries)
	launcher, how := Launcher(a.Scheduler), s.Starter()
	if _, err := lookPath(s.Starter()); err != nil {
		launcher, how = LauncherSSH, "SSH (no "+s.Starter()+" here)"
	}
	text = bytes.Replace(text, []byte(`launcher = "ssh"`), []byte("launcher = "+strconv.Quote(string(launcher))), 1)
	source := fmt.Sprintf("%s job %s (%s)", s.Name(), a.Job, a.Source)
	if a.Job == "" {
		source = fmt.Sprintf("%s allocation (%s)", s.Name(), a.Source)
	}
	inv, err := Parse(source, text)
	if err != nil {
		return nil, fmt.Errorf("deploy: %s: %w", source, err)
	}
	inv.Source = source
	inv.Notice = "no sites.toml: the inventory is the " + source + ", workers started with " + how
	return inv, nil
}
