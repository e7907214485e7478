package inventory

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy/sched"
)

func TestInsideAllocation(t *testing.T) {
	nf := func(name string) string { return filepath.Join("..", "sched", "testdata", "nodefiles", name) }
	tests := []struct {
		name    string
		env     map[string]string
		sched   Launcher
		job     string
		nodes   []sched.AllocNode
		wantErr string
	}{
		{name: "oar", env: map[string]string{"OAR_JOB_ID": "1817", "OAR_NODEFILE": nf("oar_nodefile")}, sched: "oar", job: "1817",
			nodes: []sched.AllocNode{{Name: "graphene-12.nancy.grid5000.fr", Slots: 4}, {Name: "graphene-13.nancy.grid5000.fr", Slots: 4}}},
		{name: "oar old names", env: map[string]string{"OAR_JOBID": "9", "OAR_FILE_NODES": nf("oar_nodefile")}, sched: "oar", job: "9",
			nodes: []sched.AllocNode{{Name: "graphene-12.nancy.grid5000.fr", Slots: 4}, {Name: "graphene-13.nancy.grid5000.fr", Slots: 4}}},
		{name: "grid engine", env: map[string]string{"JOB_ID": "77", "PE_HOSTFILE": nf("pe_hostfile")}, sched: "sge", job: "77",
			nodes: []sched.AllocNode{{Name: "node01.cluster.local", Slots: 6}, {Name: "node02.cluster.local", Slots: 2}}},
		{name: "pbs", env: map[string]string{"PBS_JOBID": "4242.pbs01", "PBS_NODEFILE": nf("pbs_nodefile")}, sched: "pbs", job: "4242.pbs01",
			nodes: []sched.AllocNode{{Name: "cn001", Slots: 3}, {Name: "cn002", Slots: 3}, {Name: "cn003", Slots: 3}}},
		{name: "slurm", env: map[string]string{"SLURM_JOB_ID": "5", "SLURM_JOB_NODELIST": "gpu[1-3],fat01", "SLURM_JOB_CPUS_PER_NODE": "8(x3),64"},
			sched: "slurm", job: "5", nodes: []sched.AllocNode{{Name: "gpu1", Slots: 8}, {Name: "gpu2", Slots: 8}, {Name: "gpu3", Slots: 8}, {Name: "fat01", Slots: 64}}},
		{name: "slurm without cpus", env: map[string]string{"SLURM_JOB_ID": "5", "SLURM_JOB_NODELIST": "n[01-02]"},
			sched: "slurm", job: "5", nodes: []sched.AllocNode{{Name: "n01", Slots: 0}, {Name: "n02", Slots: 0}}},
		{name: "slurm cpus disagree", env: map[string]string{"SLURM_JOB_ID": "5", "SLURM_JOB_NODELIST": "n[1-2]", "SLURM_JOB_CPUS_PER_NODE": "4(x3)"},
			wantErr: "SLURM_JOB_CPUS_PER_NODE"},
		{name: "slurm bad nodelist", env: map[string]string{"SLURM_JOB_ID": "5", "SLURM_JOB_NODELIST": "n[1-"}, wantErr: "SLURM_JOB_NODELIST"},
		{name: "pbs malformed", env: map[string]string{"PBS_NODEFILE": nf("pbs_bad")}, wantErr: "pbs_bad:2:"},
		{name: "pe malformed", env: map[string]string{"PE_HOSTFILE": nf("pe_bad")}, wantErr: "pe_bad:2: host node02: slots \"four\""},
		{name: "missing file", env: map[string]string{"OAR_NODEFILE": nf("nope")}, wantErr: "$OAR_NODEFILE"},
		{name: "none", env: map[string]string{"HOME": "/root"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, ok, err := sched.DetectAllocation(func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ok != (tt.sched != "") {
				t.Fatalf("ok = %v", ok)
			}
			if a.Scheduler != string(tt.sched) || a.Job != tt.job || !reflect.DeepEqual(a.Nodes, tt.nodes) {
				t.Errorf("got %s job %s %v, want %s job %s %v", a.Scheduler, a.Job, a.Nodes, tt.sched, tt.job, tt.nodes)
			}
		})
	}
}

func TestAllocationInventory(t *testing.T) {
	a := sched.Allocation{Scheduler: "oar", Job: "1817", Source: "$OAR_NODEFILE (f)",
		Nodes: []sched.AllocNode{{Name: "g-12", Slots: 4}, {Name: "g-13", Slots: 4}, {Name: "g-14", Slots: 2}}}
	found := func(string) (string, error) { return "/usr/bin/oarsh", nil }
	inv, err := AllocationInventory(a, found)
	if err != nil {
		t.Fatal(err)
	}
	if inv.Source != "OAR job 1817 ($OAR_NODEFILE (f))" || inv.Sites[0].Launcher != "oar" || inv.Sites[0].Name != "oar-1817" {
		t.Errorf("source %q, site %s launcher %s", inv.Source, inv.Sites[0].Name, inv.Sites[0].Launcher)
	}
	var got []string
	for _, h := range inv.Sites[0].Clusters[0].Hosts {
		got = append(got, h.Name+":"+string(rune('0'+h.Cores)))
	}
	if strings.Join(got, " ") != "g-12:4 g-13:4 g-14:2" {
		t.Errorf("hosts %v", got)
	}
	inv, err = AllocationInventory(a, func(string) (string, error) { return "", os.ErrNotExist })
	if err != nil {
		t.Fatal(err)
	}
	if inv.Sites[0].Launcher != LauncherSSH || !strings.Contains(inv.Notice, "SSH (no oarsh here)") {
		t.Errorf("without oarsh: launcher %s, notice %q", inv.Sites[0].Launcher, inv.Notice)
	}
}

func TestLoadInsideAllocation(t *testing.T) {
	abs, _ := filepath.Abs(filepath.Join("..", "sched", "testdata", "nodefiles", "pbs_nodefile"))
	t.Chdir(t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv(SitesEnv, "")
	for _, v := range []string{"SLURM_JOB_ID", "SLURM_JOB_NODELIST", "OAR_NODEFILE", "OAR_FILE_NODES", "PE_HOSTFILE"} {
		t.Setenv(v, "")
	}
	t.Setenv("PBS_NODEFILE", abs)
	t.Setenv("PBS_JOBID", "12.srv")
	inv, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(inv.Source, "PBS job 12.srv ($PBS_NODEFILE") || len(inv.Sites[0].Clusters[0].Hosts) != 3 {
		t.Errorf("inventory %q with %d hosts, want PBS job 12.srv's 3", inv.Source, len(inv.Sites[0].Clusters[0].Hosts))
	}
}
