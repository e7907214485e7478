package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestDeployShipLocalRun checks deploy --ship on a local site end to end:
// the C example lands in each local node's work directory, and a run of
// app = "exec" names it by its base name, as on SSH and Slurm hosts.
func TestDeployShipLocalRun(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed (Debian: apt-get install gcc): the C example is not built")
	}
	dir := t.TempDir()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..")
	prog := filepath.Join(dir, "poisson")
	cmd := exec.Command("gcc", "-O2", "-std=c99", "-ffp-contract=off", "-D_GNU_SOURCE", "-Iapps/exec/gridhpc", "-o", prog,
		"examples/c-poisson/poisson.c", "apps/exec/gridhpc/gridhpc.c")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	sites := filepath.Join(dir, "sites.toml")
	doc := "[[site]]\nname = \"loc\"\nlauncher = \"local\"\n  [[site.cluster]]\n  name = \"a\"\n  nodes = 2\n  cores = 1\n" +
		"  ethernet_addr = \"127.16.64.220\"\n  fast_addr = \"127.18.64.220\"\n"
	if err := os.WriteFile(sites, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "state")
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("GRIDTUI_DATA_DIR", filepath.Join(dir, "data"))
	out, err := runDeployArgs(t, "--sites", sites, "--ship", prog)
	if err != nil || strings.Count(out, "; shipped poisson") != 2 {
		t.Fatalf("deploy --ship: %v, want poisson shipped to both local nodes:\n%s", err, out)
	}
	for _, node := range []string{"a-1", "a-2"} {
		if st, err := os.Stat(filepath.Join(state, "gridtui", "local", node, "poisson")); err != nil || st.Mode()&0o100 == 0 {
			t.Errorf("%s: the shipped program: %v, %v", node, st, err)
		}
	}
	rep := string(runGridtui(t, "--sites", sites, "run", "--no-record", "--app", "exec", "--nodes", "2", "--scheme", "sync",
		"--param", "program=poisson", "--param", "args=16", "--param", "items=16", "--param", "unit=256", "--param", "eps=1e-8", "--wall-time", "2m"))
	if !strings.Contains(rep, "outcome:   ok") || !strings.Contains(rep, "program = poisson") {
		t.Errorf("the run of the shipped program on the local nodes:\n%s", rep)
	}
}
