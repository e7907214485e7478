package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// fakeSqueue is a directory holding an squeue that prints out.
func fakeSqueue(t *testing.T, out string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "squeue"), []byte("#!/bin/sh\nprintf '"+out+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCleanBatch: deploy --clean removes the work directory a batch site's
// nodes share — on its frontend, or in this host's home without one — once
// for the site, and leaves it, saying why, while an allocation gridtui
// asked for still runs from it.
func TestCleanBatch(t *testing.T) {
	key := newTestKey(t, "")
	hosts := []inventory.Host{{Name: "gtn1", Site: "hpc", Cluster: "c", IdentityFiles: []string{key.file}, Workdir: "work"},
		{Name: "gtn2", Site: "hpc", Cluster: "c", IdentityFiles: []string{key.file}, Workdir: "work"}}
	check := func(t *testing.T, inv *inventory.Inventory, opt Options, home, where string, setPath func(string)) {
		t.Helper()
		wd := filepath.Join(home, "work")
		os.MkdirAll(wd, 0o700)
		os.WriteFile(filepath.Join(wd, binaryName), []byte("x"), 0o755)
		setPath(fakeSqueue(t, "42\\n43\\n"))
		s, err := Clean(testCtx(t), inv, hosts, opt)
		for _, r := range s.Results {
			if err == nil || r.Phase != PhaseFailed || r.Err.Error() != "deploy: site hpc: not removing "+where+": Slurm job 42, 43 of gridtui still runs from it (its workers end with it)" {
				t.Errorf("%s while gridtui's jobs run: %+v, %v", r.Host, r, err)
			}
		}
		if _, err := os.Stat(filepath.Join(wd, binaryName)); err != nil {
			t.Errorf("the work directory was removed while gridtui's jobs run from it: %v", err)
		}
		setPath(fakeSqueue(t, ""))
		s, err = Clean(testCtx(t), inv, hosts, opt)
		for _, r := range s.Results {
			if err != nil || r.Phase != PhaseStopped || r.Detail != "batch site: shared work directory "+where+" removed" {
				t.Errorf("%s: %+v, %v: want the shared work directory removed", r.Host, r, err)
			}
		}
		if _, err := os.Stat(wd); !os.IsNotExist(err) {
			t.Errorf("the work directory is still there: %v", err)
		}
	}
	t.Run("frontend", func(t *testing.T) {
		srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
		host, port := srv.host()
		front := fmt.Sprintf("tester@%s:%d", host, port)
		inv := &inventory.Inventory{Sites: []inventory.Site{{Name: "hpc", Launcher: "slurm", Frontend: front, Clusters: []inventory.Cluster{{Name: "c", Hosts: hosts}}}}}
		check(t, inv, testOptions(writeKnownHosts(t, srv)), srv.home, front+":work", func(dir string) {
			srv.env = []string{"PATH=" + dir + ":" + os.Getenv("PATH")}
		})
	})
	t.Run("no frontend", func(t *testing.T) {
		home := t.TempDir()
		t.Setenv("HOME", home)
		inv := &inventory.Inventory{Sites: []inventory.Site{{Name: "hpc", Launcher: "slurm", Clusters: []inventory.Cluster{{Name: "c", Hosts: hosts}}}}}
		path := os.Getenv("PATH")
		check(t, inv, testOptions(filepath.Join(home, "known_hosts")), home, "this host's ~/work", func(dir string) {
			t.Setenv("PATH", dir+":"+path)
		})
	})
	t.Run("stop", func(t *testing.T) {
		home := t.TempDir()
		t.Setenv("HOME", home)
		os.MkdirAll(filepath.Join(home, "work"), 0o700)
		inv := &inventory.Inventory{Sites: []inventory.Site{{Name: "hpc", Launcher: "slurm", Clusters: []inventory.Cluster{{Name: "c", Hosts: hosts}}}}}
		s, err := Stop(testCtx(t), inv, hosts, testOptions(filepath.Join(home, "known_hosts")))
		if r := s.Results[0]; err != nil || r.Detail != "batch site: workers end with their allocation" {
			t.Errorf("stop: %+v, %v", r, err)
		}
		if _, err := os.Stat(filepath.Join(home, "work")); err != nil {
			t.Errorf("stop removed the shared work directory: %v", err)
		}
	})
}
