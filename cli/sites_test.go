package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// TestSitesImport turns a hostfile into an inventory file that loads, and
// never writes over an existing file.
func TestSitesImport(t *testing.T) {
	dir := t.TempDir()
	hostfile := filepath.Join(dir, "hosts")
	if err := os.WriteFile(hostfile, []byte("g-1 slots=4\ng-2 slots=4\ng-3:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sites.toml")
	runGridtui(t, "sites", "import", hostfile, "--site", "nancy", "--cluster", "graphene", "-o", out)
	inv, err := inventory.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if hs := inv.Hosts(); len(hs) != 3 || hs[2].Cores != 2 || hs[0].Site != "nancy" {
		t.Fatalf("imported: %+v", hs)
	}
	root := newRootCmd()
	root.SetArgs([]string{"sites", "import", hostfile, "-o", out})
	root.SetOut(new(strings.Builder))
	root.SetErr(new(strings.Builder))
	if err := root.Execute(); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("import over an existing file: err = %v", err)
	}
}

// TestSitesSlurm: `gridtui sites` shows a Slurm site's nodes as srun steps
// (never an SSH route, which gridtui does not take to them): of the
// allocation gridtui runs in when the environment names one holding the
// node, else of one from the site's frontend, else that a run cannot start
// them.
func TestSitesSlurm(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sites.toml")
	err := os.WriteFile(path, []byte(`
[[site]]
name = "hpc"
launcher = "slurm"
frontend = "login.hpc.example"
  [[site.cluster]]
  name = "cpu"
  hosts = "node[1-2]"

[[site]]
name = "lab"
launcher = "slurm"
  [[site.cluster]]
  name = "gpu"
  hosts = "gpu[1-2]"
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SLURM_JOB_ID", "42")
	t.Setenv("SLURM_JOB_NODELIST", "gpu[1-3]")
	out := string(runGridtui(t, "--sites", path, "sites"))
	for _, want := range []string{
		"node1  all    slurm     srun step of an allocation from frontend login.hpc.example",
		"gpu2   all    slurm     srun step of Slurm job 42 (the allocation gridtui runs in, $SLURM_JOB_NODELIST)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("sites lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ssh ") {
		t.Errorf("sites shows an SSH route to a Slurm node:\n%s", out)
	}
	t.Setenv("SLURM_JOB_NODELIST", "other1")
	out = string(runGridtui(t, "--sites", path, "sites"))
	if !strings.Contains(out, "srun: no frontend to ask for an allocation: run gridtui inside one holding gpu1") {
		t.Errorf("sites outside the allocation:\n%s", out)
	}
}

// Inside an OAR job with no sites.toml, `gridtui sites` lists the job's
// nodes with their cores and says it read $OAR_NODEFILE.
func TestSitesInsideOAR(t *testing.T) {
	nodefile := filepath.Join(t.TempDir(), "1817")
	if err := os.WriteFile(nodefile, []byte(strings.Repeat("graphene-12\n", 4)+strings.Repeat("graphene-13\n", 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("GRIDTUI_SITES", "")
	t.Setenv("SLURM_JOB_NODELIST", "")
	t.Setenv("OAR_JOB_ID", "1817")
	t.Setenv("OAR_NODEFILE", nodefile)
	out := string(runGridtui(t, "sites"))
	for _, want := range []string{"inventory: OAR job 1817 ($OAR_NODEFILE (" + nodefile + "))", "graphene-12  4", "graphene-13  2"} {
		if !strings.Contains(out, want) {
			t.Errorf("sites lacks %q:\n%s", want, out)
		}
	}
}

// `gridtui sites` shows each host's owner policy when the inventory has
// any: when gridtui may start there, the owner hours, the CPU cap.
func TestSitesOwnerPolicy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lab.toml")
	err := os.WriteFile(path, []byte(`[[site]]
name = "lab"
  [site.owner]
  owner_hours = ["Mon-Fri 08:00-19:00"]
  cpu_cap = 75
  [[site.cluster]]
  name = "room"
  hosts = "pc[1-2]"
  [[site.cluster]]
  name = "srv"
  hosts = "srv1"
    [site.cluster.owner]
    owner_hours = []
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	out := string(runGridtui(t, "--sites", path, "sites"))
	for _, want := range []string{"OWNER POLICY", "start after 15m0s idle, owner's load ≤ 0.30; not Mon-Fri 08:00-19:00; cap 75%"} {
		if !strings.Contains(out, want) {
			t.Errorf("sites lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "not Mon-Fri") != 2 {
		t.Errorf("the srv cluster's empty owner_hours did not clear the site's:\n%s", out)
	}
}
