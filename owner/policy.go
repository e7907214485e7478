package owner

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Policy is when gridtui may run on a host that has an owner. Durations are
// how long a condition must have held; loads are in cores (1.0: one core
// busy), as HTCondor's NonCondorLoadAvg.
type Policy struct {
	// IdleToStart is the interactive idle time before gridtui may start
	// (HTCondor's StartIdleTime, 15 minutes; BOINC's idle_time_to_run).
	IdleToStart time.Duration
	// IdleToContinue is the idle time before a suspended part continues
	// (HTCondor's ContinueIdleTime, 5 minutes).
	IdleToContinue time.Duration
	// ActiveIdle: an interactive session idle for less than this is its
	// owner at the keyboard, and the part suspends (HTCondor's
	// KeyboardBusy, one minute; BOINC's run_if_user_active = false).
	ActiveIdle time.Duration
	// OwnerCPUIdle is the most load the owner's processes may put on the
	// host for gridtui to start or continue (HTCondor's CPUIdle, 0.3).
	OwnerCPUIdle float64
	// OwnerCPUBusy is the owner's load that suspends the part once it has
	// lasted CPUBusyFor (HTCondor's CPUBusy, 0.5 for 2 minutes; BOINC's
	// suspend_cpu_usage).
	OwnerCPUBusy float64
	CPUBusyFor   time.Duration
	// MinFreeMemory suspends the part when the host's available memory
	// falls below it (bytes; 0: never).
	MinFreeMemory uint64
	// MaxSuspend is how long a part stays suspended before it is given back:
	// drained to a spare (HTCondor's MaxSuspendTime, 10 minutes).
	MaxSuspend time.Duration
	// MaxVacate is how long a drain may take before the worker is stopped
	// (HTCondor's MaxVacateTime, 10 minutes).
	MaxVacate time.Duration
	// SyncGrace is how long a part of a synchronous (or hybrid) run stays
	// held before it is drained to a spare: holding it stalls every other
	// part, so it moves long before MaxSuspend; an asynchronous run's
	// other parts go on, and its part waits for MaxSuspend.
	SyncGrace time.Duration
	// CPUCap is the share of the host's cores the worker may use, in
	// percent, where cgroups allow (BOINC's cpu_usage_limit); 100: no cap.
	CPUCap int
	// OwnerHours are the times the host is its owner's whatever the
	// activity: gridtui does not start and suspends (e.g. weekdays 8–19).
	OwnerHours []Window `json:",omitempty"`
	// Users, when set, are the owner's user names: their processes' CPU is
	// the owner's load, and nobody else's (a lab machine whose daemons or
	// other users' jobs should not count); empty: every process that is
	// not gridtui's.
	Users []string `json:",omitempty"`
}

// Default is HTCondor's desktop policy (the UWCS defaults of its manual's
// "Policy Configuration for Execute Hosts") with no owner hours and no cap.
func Default() Policy {
	return Policy{
		IdleToStart:    15 * time.Minute,
		IdleToContinue: 5 * time.Minute,
		ActiveIdle:     time.Minute,
		OwnerCPUIdle:   0.3,
		OwnerCPUBusy:   0.5,
		CPUBusyFor:     2 * time.Minute,
		MaxSuspend:     10 * time.Minute,
		MaxVacate:      10 * time.Minute,
		SyncGrace:      time.Minute,
		CPUCap:         100,
	}
}

// ErrPolicy is wrapped by every invalid policy value.
var ErrPolicy = errors.New("invalid owner policy")

// Check reports the first value out of range, naming its key in
// sites.toml; key says which (for a file:line:col).
func (p Policy) Check() (key string, err error) {
	bad := func(k, format string, a ...any) (string, error) {
		return k, fmt.Errorf("%w: %s", ErrPolicy, fmt.Sprintf(format, a...))
	}
	durs := []struct {
		k string
		d time.Duration
	}{{"idle_to_start", p.IdleToStart}, {"idle_to_continue", p.IdleToContinue}, {"active_idle", p.ActiveIdle},
		{"cpu_busy_for", p.CPUBusyFor}, {"max_suspend", p.MaxSuspend}, {"max_vacate", p.MaxVacate},
		{"sync_grace", p.SyncGrace}}
	for _, d := range durs {
		if d.d < 0 || d.d > 7*24*time.Hour {
			return bad(d.k, "%s %v is not between 0 and a week", d.k, d.d)
		}
	}
	switch {
	case p.OwnerCPUIdle < 0 || p.OwnerCPUIdle > 1024:
		return bad("owner_cpu_idle", "owner_cpu_idle %g is not a load between 0 and 1024 cores", p.OwnerCPUIdle)
	case p.OwnerCPUBusy <= 0 || p.OwnerCPUBusy > 1024:
		return bad("owner_cpu_busy", "owner_cpu_busy %g is not a load above 0 and at most 1024 cores", p.OwnerCPUBusy)
	case p.OwnerCPUIdle > p.OwnerCPUBusy:
		return bad("owner_cpu_idle", "owner_cpu_idle %g is above owner_cpu_busy %g: a part would suspend at once on continuing", p.OwnerCPUIdle, p.OwnerCPUBusy)
	case p.CPUCap < 1 || p.CPUCap > 100:
		return bad("cpu_cap", "cpu_cap %d is not a percentage between 1 and 100", p.CPUCap)
	case p.ActiveIdle > p.IdleToContinue:
		return bad("active_idle", "active_idle %v is above idle_to_continue %v: a part would suspend at once on continuing", p.ActiveIdle, p.IdleToContinue)
	}
	for _, u := range p.Users {
		if u == "" || strings.ContainsAny(u, " :/") {
			return bad("owner_users", "owner_users: %q is not a user name", u)
		}
	}
	return "", nil
}

// Window is a weekly time window: days Days (bit d for time.Weekday d),
// from Start to End after midnight, End after Start.
type Window struct {
	Days       uint8
	Start, End time.Duration
	text       string
}

// String is the window as written: "Mon-Fri 08:00-19:00".
func (w Window) String() string { return w.text }

// MarshalText writes the window as written, so that a Policy travels as
// JSON (a worker's Boot).
func (w Window) MarshalText() ([]byte, error) { return []byte(w.text), nil }

// UnmarshalText reads a window as ParseWindow does.
func (w *Window) UnmarshalText(b []byte) error {
	v, err := ParseWindow(string(b))
	if err != nil {
		return err
	}
	*w = v
	return nil
}

// Contains says whether t falls in the window (t's own location).
func (w Window) Contains(t time.Time) bool {
	if w.Days&(1<<t.Weekday()) == 0 {
		return false
	}
	at := time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute + time.Duration(t.Second())*time.Second
	return at >= w.Start && at < w.End
}

var dayNames = []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

// ParseWindow reads "Mon-Fri 08:00-19:00", "Sat 10:00-12:00" or
// "Mon,Wed 13:00-14:00". An overnight window is written as two (its start
// must come before its end): "Mon-Fri 19:00-24:00", "Tue-Sat 00:00-08:00".
func ParseWindow(s string) (Window, error) {
	days, hours, ok := strings.Cut(strings.TrimSpace(s), " ")
	if !ok {
		return Window{}, fmt.Errorf("%w: window %q: want \"DAYS HH:MM-HH:MM\" (\"Mon-Fri 08:00-19:00\")", ErrPolicy, s)
	}
	w := Window{text: s}
	for _, part := range strings.Split(days, ",") {
		from, to, isRange := strings.Cut(part, "-")
		a, b := dayIndex(from), dayIndex(to)
		if !isRange {
			b = a
		}
		if a < 0 || b < 0 {
			return Window{}, fmt.Errorf("%w: window %q: %q is not a day (Mon … Sun) or a range of them", ErrPolicy, s, part)
		}
		for d := a; ; d = (d + 1) % 7 {
			w.Days |= 1 << d
			if d == b {
				break
			}
		}
	}
	from, to, ok := strings.Cut(strings.TrimSpace(hours), "-")
	start, err1 := clock(from)
	end, err2 := clock(to)
	if !ok || err1 != nil || err2 != nil {
		return Window{}, fmt.Errorf("%w: window %q: hours %q: want HH:MM-HH:MM, 00:00 to 24:00", ErrPolicy, s, hours)
	}
	if start >= end {
		return Window{}, fmt.Errorf("%w: window %q: starts at %s, not before its end %s (write an overnight window as two)", ErrPolicy, s, from, to)
	}
	w.Start, w.End = start, end
	return w, nil
}

func dayIndex(s string) int {
	s = strings.ToLower(strings.TrimSpace(s))
	for i, d := range dayNames {
		if s == d || s == longDay(i) {
			return i
		}
	}
	return -1
}

func longDay(i int) string { return strings.ToLower(time.Weekday(i).String()) }

// clock parses HH:MM, 00:00 to 24:00.
func clock(s string) (time.Duration, error) {
	h, m, ok := strings.Cut(strings.TrimSpace(s), ":")
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if !ok || len(m) != 2 || err1 != nil || err2 != nil || hh < 0 || mm < 0 || mm > 59 || hh > 24 || (hh == 24 && mm != 0) {
		return 0, fmt.Errorf("%q is not HH:MM", s)
	}
	return time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute, nil
}

// InOwnerHours returns the owner window t falls in, if any.
func (p Policy) InOwnerHours(t time.Time) (Window, bool) {
	for _, w := range p.OwnerHours {
		if w.Contains(t) {
			return w, true
		}
	}
	return Window{}, false
}
