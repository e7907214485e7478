package inventory

import (
	"time"

	"github.com/gridtui/gridtui/owner"
)

// fileOwner is an [site.owner], [site.cluster.owner] or
// [site.cluster.host.owner] table: the owner policy of the desktops below
// it (package owner). A table lower down overrides the keys it sets.
type fileOwner struct {
	IdleToStart    string   `toml:"idle_to_start"`
	IdleToContinue string   `toml:"idle_to_continue"`
	ActiveIdle     string   `toml:"active_idle"`
	OwnerCPUIdle   *float64 `toml:"owner_cpu_idle"`
	OwnerCPUBusy   *float64 `toml:"owner_cpu_busy"`
	CPUBusyFor     string   `toml:"cpu_busy_for"`
	MinFreeMiB     *int     `toml:"min_free_mib"`
	MaxSuspend     string   `toml:"max_suspend"`
	MaxVacate      string   `toml:"max_vacate"`
	SyncGrace      string   `toml:"sync_grace"`
	CPUCap         *int     `toml:"cpu_cap"`
	OwnerHours     []string `toml:"owner_hours"`
	OwnerUsers     []string `toml:"owner_users"`
}

// ownerPolicy applies table fo (at key path) over base; a nil fo leaves
// base. Every value is checked, and the result as a whole (Policy.Check),
// with the file:line:col of the offending key.
func (b *builder) ownerPolicy(path string, fo *fileOwner, base *owner.Policy) (*owner.Policy, error) {
	if fo == nil {
		return base, nil
	}
	p := owner.Default()
	if base != nil {
		p = *base
	}
	path += ".owner"
	for _, d := range []struct {
		key string
		s   string
		to  *time.Duration
	}{{"idle_to_start", fo.IdleToStart, &p.IdleToStart}, {"idle_to_continue", fo.IdleToContinue, &p.IdleToContinue},
		{"active_idle", fo.ActiveIdle, &p.ActiveIdle}, {"cpu_busy_for", fo.CPUBusyFor, &p.CPUBusyFor},
		{"max_suspend", fo.MaxSuspend, &p.MaxSuspend}, {"max_vacate", fo.MaxVacate, &p.MaxVacate},
		{"sync_grace", fo.SyncGrace, &p.SyncGrace}} {
		if d.s == "" {
			continue
		}
		v, err := time.ParseDuration(d.s)
		if err != nil || v < 0 {
			return nil, b.errAt(path+"."+d.key, "%s %q is not a duration (like \"90s\", \"15m\" or \"1h\")", d.key, d.s)
		}
		*d.to = v
	}
	if fo.OwnerCPUIdle != nil {
		p.OwnerCPUIdle = *fo.OwnerCPUIdle
	}
	if fo.OwnerCPUBusy != nil {
		p.OwnerCPUBusy = *fo.OwnerCPUBusy
	}
	if fo.MinFreeMiB != nil {
		if *fo.MinFreeMiB < 0 || *fo.MinFreeMiB > 1<<24 {
			return nil, b.errAt(path+".min_free_mib", "min_free_mib %d is not between 0 and %d", *fo.MinFreeMiB, 1<<24)
		}
		p.MinFreeMemory = uint64(*fo.MinFreeMiB) << 20
	}
	if fo.CPUCap != nil {
		p.CPUCap = *fo.CPUCap
	}
	if fo.OwnerHours != nil {
		p.OwnerHours = nil
		for i, s := range fo.OwnerHours {
			w, err := owner.ParseWindow(s)
			if err != nil {
				return nil, b.errAt(path+".owner_hours", "owner_hours[%d]: %v", i, err)
			}
			p.OwnerHours = append(p.OwnerHours, w)
		}
	}
	if fo.OwnerUsers != nil {
		p.Users = append([]string(nil), fo.OwnerUsers...)
	}
	if key, err := p.Check(); err != nil {
		return nil, b.errAt(path+"."+key, "%v", err)
	}
	return &p, nil
}
