package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy"
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
	inv, err := deploy.Load(out)
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
