package deploy

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Each scheduler's node file, in the format its jobs find it, gives the
// allocation's hosts in order with their slots; a malformed one is an error
// naming file:line.
func TestInsideAllocation(t *testing.T) {
	nf := func(name string) string { return filepath.Join("testdata", "nodefiles", name) }
	tests := []struct {
		name    string
		env     map[string]string
		sched   Launcher
		job     string
		nodes   []AllocNode
		wantErr string
	}{
		{name: "oar", env: map[string]string{"OAR_JOB_ID": "1817", "OAR_NODEFILE": nf("oar_nodefile")}, sched: LauncherOAR, job: "1817",
			nodes: []AllocNode{{"graphene-12.nancy.grid5000.fr", 4}, {"graphene-13.nancy.grid5000.fr", 4}}},
		{name: "oar old names", env: map[string]string{"OAR_JOBID": "9", "OAR_FILE_NODES": nf("oar_nodefile")}, sched: LauncherOAR, job: "9",
			nodes: []AllocNode{{"graphene-12.nancy.grid5000.fr", 4}, {"graphene-13.nancy.grid5000.fr", 4}}},
		{name: "grid engine", env: map[string]string{"JOB_ID": "77", "PE_HOSTFILE": nf("pe_hostfile")}, sched: LauncherSGE, job: "77",
			nodes: []AllocNode{{"node01.cluster.local", 6}, {"node02.cluster.local", 2}}},
		{name: "pbs", env: map[string]string{"PBS_JOBID": "4242.pbs01", "PBS_NODEFILE": nf("pbs_nodefile")}, sched: LauncherPBS, job: "4242.pbs01",
			nodes: []AllocNode{{"cn001", 3}, {"cn002", 3}, {"cn003", 3}}},
		{name: "slurm", env: map[string]string{"SLURM_JOB_ID": "5", "SLURM_JOB_NODELIST": "gpu[1-3],fat01", "SLURM_JOB_CPUS_PER_NODE": "8(x3),64"},
			sched: LauncherSlurm, job: "5", nodes: []AllocNode{{"gpu1", 8}, {"gpu2", 8}, {"gpu3", 8}, {"fat01", 64}}},
		{name: "slurm without cpus", env: map[string]string{"SLURM_JOB_ID": "5", "SLURM_JOB_NODELIST": "n[01-02]"},
			sched: LauncherSlurm, job: "5", nodes: []AllocNode{{"n01", 0}, {"n02", 0}}},
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
			a, ok, err := DetectAllocation(func(k string) string { return tt.env[k] })
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
			if a.Scheduler != tt.sched || a.Job != tt.job || !reflect.DeepEqual(a.Nodes, tt.nodes) {
				t.Errorf("got %s job %s %v, want %s job %s %v", a.Scheduler, a.Job, a.Nodes, tt.sched, tt.job, tt.nodes)
			}
		})
	}
}

func TestParseNodeFileErrors(t *testing.T) {
	tests := []struct {
		name, data string
		f          NodeFileFormat
		want       string
	}{
		{"empty", "\n\n", NodeFilePerSlot, "f: no host"},
		{"two fields", "a\n\nb c\n", NodeFilePerSlot, "f:3: \"b c\""},
		{"bad name", "a;rm\n", NodeFilePerSlot, "f:1: \"a;rm\" is not a host name"},
		{"dash name", "-oProxyCommand=x\n", NodeFilePerSlot, "f:1:"},
		{"pe short", "n1\n", NodeFilePE, "f:1:"},
		{"pe zero", "n1 0 q UNDEFINED\n", NodeFilePE, "f:1: host n1: slots \"0\""},
		{"pe too many", "n1 65536 q U\nn1 1 q U\n", NodeFilePE, "f:2: host n1: more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseNodeFile("f", []byte(tt.data), tt.f)
			if !errors.Is(err, ErrNodeFile) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want ErrNodeFile containing %q", err, tt.want)
			}
		})
	}
}

// Inside an allocation with no sites.toml, the allocation is the
// inventory: its hosts and slots, launched with the scheduler's remote
// start, else SSH; Source says which allocation was read.
func TestAllocationInventory(t *testing.T) {
	a := Allocation{Scheduler: LauncherOAR, Job: "1817", Source: "$OAR_NODEFILE (f)",
		Nodes: []AllocNode{{"g-12", 4}, {"g-13", 4}, {"g-14", 2}}}
	found := func(string) (string, error) { return "/usr/bin/oarsh", nil }
	inv, err := AllocationInventory(a, found)
	if err != nil {
		t.Fatal(err)
	}
	if inv.Source != "OAR job 1817 ($OAR_NODEFILE (f))" || inv.Sites[0].Launcher != LauncherOAR || inv.Sites[0].Name != "oar-1817" {
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

// Load with no sites.toml anywhere reads the allocation gridtui runs in.
func TestLoadInsideAllocation(t *testing.T) {
	abs, _ := filepath.Abs(filepath.Join("testdata", "nodefiles", "pbs_nodefile"))
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

// FuzzParseNodeFile: no input panics, every error is ErrNodeFile, and a
// parsed file's hosts are valid names with positive slots; each input is
// also parsed in both formats.
func FuzzParseNodeFile(f *testing.F) {
	for _, n := range []string{"oar_nodefile", "pe_hostfile", "pbs_nodefile", "pbs_bad", "pe_bad"} {
		data, err := os.ReadFile(filepath.Join("testdata", "nodefiles", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("a\r\nb\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []NodeFileFormat{NodeFilePerSlot, NodeFilePE} {
			nodes, err := ParseNodeFile("f", data, format)
			if err != nil {
				if !errors.Is(err, ErrNodeFile) {
					t.Fatalf("error %v is not ErrNodeFile", err)
				}
				continue
			}
			seen := map[string]bool{}
			for _, n := range nodes {
				if checkNodeName(n.Name) != nil || n.Slots < 1 || n.Slots > maxSlots || seen[n.Name] {
					t.Fatalf("bad node %+v from %q", n, data)
				}
				seen[n.Name] = true
			}
		}
	})
}

func FuzzSlurmCPUs(f *testing.F) {
	f.Add("2(x3),1", 4)
	f.Add("64", 1)
	f.Add("1(x", 2)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1000 {
			return
		}
		cpus, err := slurmCPUs(s, n)
		if err == nil && s != "" && len(cpus) != n {
			t.Fatalf("%q for %d nodes gave %d", s, n, len(cpus))
		}
	})
}
