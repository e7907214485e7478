package owner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/shirou/gopsutil/v4/common"
	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/host"
	"github.com/shirou/gopsutil/v4/mem"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times (100 on every
// Linux gridtui runs on).
const clockTicks = 100

// Sampler observes this host: interactive sessions from utmp with their
// tty's idle time, the CPU used by processes outside gridtui's process
// groups, and the available memory. Sample's load is over the time since
// the previous Sample.
type Sampler struct {
	// Users, when set, are the owner's user ids: the owner's load is then
	// the CPU of their processes only, not of every process outside
	// gridtui's (a lab machine whose daemons should not count).
	Users []uint32

	mu     sync.Mutex
	groups map[int]bool // gridtui's process groups
	last   time.Time
	busy   float64 // the host's busy CPU seconds at last
	ours   float64 // gridtui's CPU seconds at last
}

// NewSampler observes this host; gridtui's own process group is not the
// owner's.
func NewSampler() *Sampler {
	return &Sampler{groups: map[int]bool{syscall.Getpgrp(): true}}
}

// Exclude marks process group pgid as gridtui's (a worker's).
func (s *Sampler) Exclude(pgid int) {
	s.mu.Lock()
	s.groups[pgid] = true
	s.mu.Unlock()
}

// Sample takes one observation.
func (s *Sampler) Sample(ctx context.Context) (Observation, error) {
	now := time.Now()
	o := Observation{At: now, Idle: SessionIdle(ctx, now)}
	s.mu.Lock()
	var busy, ours float64
	if len(s.Users) > 0 { // the owner's processes, counted directly
		busy = usersCPU(s.Users, s.groups)
	} else { // every process but gridtui's: the host's busy time minus ours
		times, err := cpu.TimesWithContext(ctx, false)
		if err != nil || len(times) == 0 {
			s.mu.Unlock()
			return o, fmt.Errorf("owner: cpu times: %v", err)
		}
		t := times[0]
		busy = t.User + t.Nice + t.System + t.Irq + t.Softirq + t.Steal
		ours = groupsCPU(s.groups)
	}
	if !s.last.IsZero() {
		if dt := o.At.Sub(s.last).Seconds(); dt > 0 {
			o.OwnerLoad = max(0, (busy-s.busy)-(ours-s.ours)) / dt
		}
	}
	s.last, s.busy, s.ours = o.At, busy, ours
	s.mu.Unlock()
	if vm, err := mem.VirtualMemoryWithContext(ctx); err == nil {
		o.FreeMemory = vm.Available
	}
	return o, nil
}

// SessionIdle is the shortest idle time of the interactive sessions utmp
// lists at now: the time since their tty's last input (its access time),
// as `w` computes it; NoSession when there is none.
func SessionIdle(ctx context.Context, now time.Time) time.Duration {
	idle := NoSession
	for _, u := range sessions(ctx, now) {
		if u.Terminal == "" {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat(filepath.Join("/dev", u.Terminal), &st) != nil {
			continue
		}
		at := time.Unix(st.Atim.Sec, st.Atim.Nsec)
		idle = min(idle, max(0, now.Sub(at)))
	}
	return idle
}

// utmpPath is where the sessions are, on a system that keeps utmp: where
// gopsutil reads them, $HOST_VAR/run/utmp (HOST_VAR from ctx's
// common.EnvMap or the environment, as gopsutil takes it; /var by
// default): a container given the host's /var, or a test's own file.
func utmpPath(ctx context.Context) string {
	v := ""
	if env, ok := ctx.Value(common.EnvKey).(common.EnvMap); ok {
		v = env[common.HostVarEnvKey]
	}
	if v == "" {
		v = os.Getenv("HOST_VAR")
	}
	if v == "" {
		v = "/var"
	}
	return filepath.Join(v, "run", "utmp")
}

// logindEvery is how often the session list is asked of systemd-logind
// on a system without utmp: each time is a loginctl process, which would
// take the owner's CPU if it ran at every sample. The terminals' idle
// times are still read at every sample.
const logindEvery = 30 * time.Second

var logind struct {
	sync.Mutex
	at    time.Time
	users []host.UserStat
}

// sessions lists the interactive sessions: from utmp when the system
// keeps it, else from systemd-logind (gopsutil's fallback), at most every
// logindEvery.
func sessions(ctx context.Context, now time.Time) []host.UserStat {
	if _, err := os.Stat(utmpPath(ctx)); err == nil {
		users, _ := host.UsersWithContext(ctx)
		return users
	}
	logind.Lock()
	defer logind.Unlock()
	if logind.at.IsZero() || now.Sub(logind.at) >= logindEvery {
		logind.users, _ = host.UsersWithContext(ctx)
		logind.at = now
	}
	return logind.users
}

// groupsCPU sums the CPU seconds (user and system) of the processes of the
// given process groups, from /proc/PID/stat.
func groupsCPU(groups map[int]bool) float64 {
	ents, _ := os.ReadDir("/proc")
	var ticks uint64
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		pgrp, cpu, ok := statFields(data)
		if ok && groups[pgrp] {
			ticks += cpu
		}
	}
	return float64(ticks) / clockTicks
}

// statFields reads the process group and utime+stime of a /proc/PID/stat
// line: "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
// majflt cmajflt utime stime …"; comm may hold spaces and parentheses.
func statFields(data []byte) (pgrp int, ticks uint64, ok bool) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 13 {
		return 0, 0, false
	}
	pgrp, err1 := strconv.Atoi(string(f[2]))
	ut, err2 := strconv.ParseUint(string(f[11]), 10, 64)
	st, err3 := strconv.ParseUint(string(f[12]), 10, 64)
	return pgrp, ut + st, err1 == nil && err2 == nil && err3 == nil
}

// usersCPU sums the CPU seconds of the processes of the given users that
// are not in gridtui's process groups.
func usersCPU(users []uint32, groups map[int]bool) float64 {
	ents, _ := os.ReadDir("/proc")
	var ticks uint64
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		fi, err := os.Stat("/proc/" + e.Name())
		if err != nil {
			continue
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || !slices.Contains(users, st.Uid) {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if pgrp, cpu, ok := statFields(data); ok && !groups[pgrp] {
			ticks += cpu
		}
	}
	return float64(ticks) / clockTicks
}
