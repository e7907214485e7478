package inventory

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const labSites = `[[site]]
name = "lab"

  [site.owner]
  owner_hours = ["Mon-Fri 08:00-19:00"]
  cpu_cap = 50

  [[site.cluster]]
  name = "desks"
  hosts = "desk[01-03]"

    [site.cluster.owner]
    idle_to_start = "10m"
    sync_grace = "30s"

    [[site.cluster.host]]
    name = "desk02"
      [site.cluster.host.owner]
      owner_cpu_busy = 0.8
      owner_users = ["alice"]

  [[site.cluster]]
  name = "servers"
  hosts = "srv1"
`

// Owner tables at site, cluster and host level combine, lower ones
// overriding the keys they set over HTCondor-like defaults; a cluster
// without any stays the grid's.
func TestOwnerPolicyInherits(t *testing.T) {
	inv, err := Parse("lab.toml", []byte(labSites))
	if err != nil {
		t.Fatal(err)
	}
	hosts := inv.Hosts()
	d1, d2, srv := hosts[0], hosts[1], hosts[3]
	if d1.Owner == nil || d1.Owner.IdleToStart != 10*time.Minute || d1.Owner.CPUCap != 50 || d1.Owner.OwnerCPUBusy != 0.5 ||
		d1.Owner.SyncGrace != 30*time.Second || len(d1.Owner.OwnerHours) != 1 || d1.Owner.OwnerHours[0].String() != "Mon-Fri 08:00-19:00" {
		t.Errorf("desk01's policy: %+v", d1.Owner)
	}
	if d2.Owner == nil || d2.Owner.OwnerCPUBusy != 0.8 || d2.Owner.IdleToStart != 10*time.Minute || len(d2.Owner.Users) != 1 || d2.Owner.Users[0] != "alice" {
		t.Errorf("desk02's policy: %+v", d2.Owner)
	}
	if d1.Owner.OwnerCPUBusy != 0.5 {
		t.Error("desk02's override reached desk01")
	}
	if srv.Owner == nil || srv.Owner.IdleToStart != 15*time.Minute || srv.Owner.SyncGrace != time.Minute {
		t.Errorf("srv1 has the site's policy with defaults: %+v", srv.Owner)
	}
	inv, _ = Parse("plain.toml", []byte("[[site]]\nname = \"s\"\n  [[site.cluster]]\n  name = \"c\"\n  hosts = \"a\"\n"))
	if inv.Hosts()[0].Owner != nil {
		t.Error("a host without an owner table has a policy")
	}
}

// Unknown keys, impossible windows and thresholds out of range are
// errors at file:line:col.
func TestOwnerPolicyErrors(t *testing.T) {
	base := "[[site]]\nname = \"s\"\n  [site.owner]\n  %s\n  [[site.cluster]]\n  name = \"c\"\n  hosts = \"a\"\n"
	tests := map[string]struct{ line, want string }{
		"unknown key":       {`idle_to_strat = "5m"`, "lab.toml:4:3"},
		"impossible window": {`owner_hours = ["Mon-Fri 19:00-08:00"]`, "lab.toml:4:3: site[0].owner.owner_hours: owner_hours[0]: invalid owner policy: window \"Mon-Fri 19:00-08:00\": starts at 19:00, not before its end 08:00"},
		"bad day":           {`owner_hours = ["Mo-Fr 08:00-19:00"]`, "lab.toml:4:3"},
		"cap":               {`cpu_cap = 0`, "lab.toml:4:3: site[0].owner.cpu_cap: invalid owner policy: cpu_cap 0 is not a percentage"},
		"busy below idle":   {`owner_cpu_busy = 0.1`, "owner_cpu_idle 0.3 is above owner_cpu_busy 0.1"},
		"negative load":     {`owner_cpu_idle = -1.0`, "lab.toml:4:3: site[0].owner.owner_cpu_idle"},
		"bad duration":      {`max_suspend = "ten minutes"`, "lab.toml:4:3: site[0].owner.max_suspend: max_suspend \"ten minutes\" is not a duration"},
		"grace":             {`sync_grace = "-1m"`, "lab.toml:4:3: site[0].owner.sync_grace: sync_grace \"-1m\" is not a duration"},
		"memory":            {`min_free_mib = -5`, "lab.toml:4:3: site[0].owner.min_free_mib"},
		"user":              {`owner_users = ["al ice"]`, "lab.toml:4:3: site[0].owner.owner_users: invalid owner policy: owner_users: \"al ice\" is not a user name"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("lab.toml", []byte(strings.Replace(base, "%s", tt.line, 1)))
			var ce *ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want a ConfigError containing %q", err, tt.want)
			}
		})
	}
}
