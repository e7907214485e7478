package owner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Part is a worker's computation on this host, a process group: suspend is
// SIGSTOP of the group (the asynchronous iterations of the other parts go
// on with its last halos), continue is SIGCONT. A part governed from its
// start is already running: wait holds it stopped, start lets it go.
type Part struct {
	Pgid int
	// Drain moves the part to a spare (the resilience layer's drain); nil
	// when there is none.
	Drain func() error
	// StopGrace is how long Stop waits after SIGTERM before SIGKILL.
	StopGrace time.Duration
}

// Apply carries out d on the part.
func (p *Part) Apply(d Decision) error {
	switch d.Action {
	case Wait, Suspend:
		return signalGroup(p.Pgid, syscall.SIGSTOP)
	case Start, Continue:
		return signalGroup(p.Pgid, syscall.SIGCONT)
	case Drain:
		if p.Drain == nil {
			return ErrNoDrain
		}
		signalGroup(p.Pgid, syscall.SIGCONT) // a drain needs the part running
		return p.Drain()
	case Stop:
		signalGroup(p.Pgid, syscall.SIGCONT)
		if err := signalGroup(p.Pgid, syscall.SIGTERM); err != nil {
			return err
		}
		time.Sleep(p.StopGrace)
		if syscall.Kill(-p.Pgid, 0) == nil {
			return signalGroup(p.Pgid, syscall.SIGKILL)
		}
	}
	return nil
}

func signalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		return fmt.Errorf("owner: no process group to signal (%d)", pgid)
	}
	if err := syscall.Kill(-pgid, sig); err != nil {
		return fmt.Errorf("owner: %s process group %d: %w", sig, pgid, err)
	}
	return nil
}

// Lower puts process group pgid at the lowest priority (nice 19) and, when
// capPercent < 100 and this host's cgroup v2 hierarchy lets this process
// create a group, under a CPU cap of capPercent of cores cores. The
// priority is always set; the cap's error says why it is not applied.
func Lower(pgid, capPercent, cores int) error {
	if err := syscall.Setpriority(syscall.PRIO_PGRP, pgid, 19); err != nil {
		return fmt.Errorf("owner: nice 19 for process group %d: %w", pgid, err)
	}
	if capPercent >= 100 || capPercent < 1 {
		return nil
	}
	return capGroup(pgid, capPercent, cores)
}

// cgroupRoot is where cgroup v2 is mounted.
const cgroupRoot = "/sys/fs/cgroup"

// capGroup creates a cgroup beside this process's own with cpu.max set to
// capPercent of cores, and moves the group's processes there.
func capGroup(pgid, capPercent, cores int) error {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return fmt.Errorf("owner: cpu cap: %w", err)
	}
	rel, ok := strings.CutPrefix(strings.TrimSpace(string(self)), "0::")
	if !ok {
		return errors.New("owner: cpu cap: not a cgroup v2 hierarchy")
	}
	parent := filepath.Join(cgroupRoot, filepath.Dir(rel))
	dir := filepath.Join(parent, "gridtui-owner-"+strconv.Itoa(pgid))
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return fmt.Errorf("owner: cpu cap: %w", err)
	}
	const period = 100000
	quota := period * cores * capPercent / 100
	if err := os.WriteFile(filepath.Join(dir, "cpu.max"), []byte(fmt.Sprintf("%d %d", quota, period)), 0o644); err != nil {
		os.Remove(dir)
		return fmt.Errorf("owner: cpu cap: %s: %w (the cpu controller is not delegated here)", dir, err)
	}
	for _, pid := range groupPIDs(pgid) {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
			return fmt.Errorf("owner: cpu cap: move %d to %s: %w", pid, dir, err)
		}
	}
	return nil
}

// groupPIDs lists the processes of process group pgid.
func groupPIDs(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if g, _, ok := statFields(data); ok && g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}
