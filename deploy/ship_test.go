package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// TestDeployShip: the files of Options.Ship land beside the worker binary
// with their sha256, executable; a second deploy ships nothing and the
// binary's own record still says unchanged; a changed file goes again; a
// missing file or a name gridtui keeps fails the host, naming the file.
func TestDeployShip(t *testing.T) {
	key := newTestKey(t, "")
	for _, compress := range []bool{true, false} {
		name := "gzip through exec"
		if !compress {
			name = "sftp"
		}
		t.Run(name, func(t *testing.T) {
			srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
			opt := testOptions(writeKnownHosts(t, srv))
			opt.Binary = smallBinary(t, 1<<20)
			opt.NoCompress = !compress
			dir := t.TempDir()
			prog, data := filepath.Join(dir, "poisson"), filepath.Join(dir, "grid.dat")
			os.WriteFile(prog, []byte("#!/bin/sh\necho poisson\n"), 0o755)
			os.WriteFile(data, []byte("1 2 3\n"), 0o644)
			opt.Ship = []string{prog, data}
			h := testHost(srv, key)
			s, err := Deploy(testCtx(t), sshInventory(), []inventory.Host{h}, opt)
			if err != nil {
				t.Fatal(err)
			}
			if r := s.Results[0]; r.Phase != PhaseReady || !strings.Contains(r.Detail, "shipped poisson, grid.dat") {
				t.Fatalf("result %+v, want poisson and grid.dat shipped", r)
			}
			for _, f := range opt.Ship {
				remote := filepath.Join(srv.home, "work", filepath.Base(f))
				if got, want := fileSum(t, remote), fileSum(t, f); got != want {
					t.Fatalf("%s: sha256 %s, want %s", remote, got, want)
				}
			}
			if st, err := os.Stat(filepath.Join(srv.home, "work", "poisson")); err != nil || st.Mode()&0o100 == 0 {
				t.Fatalf("shipped program: %v, %v: want it executable", st, err)
			}
			s, err = Deploy(testCtx(t), sshInventory(), []inventory.Host{h}, opt)
			if r := s.Results[0]; err != nil || r.Bytes != 0 || r.Detail != "unchanged; unchanged poisson, grid.dat" {
				t.Fatalf("redeploy: %+v, %v: want nothing shipped", r, err)
			}
			os.WriteFile(data, []byte("4 5 6\n"), 0o644)
			s, err = Deploy(testCtx(t), sshInventory(), []inventory.Host{h}, opt)
			if r := s.Results[0]; err != nil || r.Detail != "unchanged; shipped grid.dat; unchanged poisson" {
				t.Fatalf("after a change: %+v, %v: want grid.dat shipped again", r, err)
			}
		})
	}
	t.Run("refused", func(t *testing.T) {
		srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
		opt := testOptions(writeKnownHosts(t, srv))
		opt.Binary = smallBinary(t, 1<<10)
		h := testHost(srv, key)
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, binaryName), nil, 0o755)
		for f, want := range map[string]string{
			filepath.Join(dir, "missing"):  "deploy: ship: stat " + filepath.Join(dir, "missing") + ": no such file or directory",
			filepath.Join(dir, binaryName): "the work directory keeps gridtui for gridtui itself",
			dir:                            "deploy: ship " + dir + ": not a regular file",
		} {
			opt.Ship = []string{f}
			s, err := Deploy(testCtx(t), sshInventory(), []inventory.Host{h}, opt)
			if r := s.Results[0]; err == nil || r.Phase != PhaseFailed || !strings.Contains(r.Err.Error(), want) {
				t.Errorf("ship %s: %+v, %v; want the host failed with %q", f, r, err, want)
			}
		}
	})
}

// shipTestFiles writes a program and a data file to ship.
func shipTestFiles(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	prog, data := filepath.Join(dir, "poisson"), filepath.Join(dir, "grid.dat")
	os.WriteFile(prog, []byte("#!/bin/sh\necho poisson\n"), 0o755)
	os.WriteFile(data, []byte("1 2 3\n"), 0o644)
	return []string{prog, data}
}

// checkShipped checks that dir holds the files with their sha256, the
// program executable.
func checkShipped(t *testing.T, dir string, files []string) {
	t.Helper()
	for _, f := range files {
		got := filepath.Join(dir, filepath.Base(f))
		if _, err := os.Stat(got); err != nil {
			t.Errorf("%s not shipped: %v", got, err)
			continue
		}
		if a, b := fileSum(t, got), fileSum(t, f); a != b {
			t.Errorf("%s: sha256 %s, want %s", got, a, b)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "poisson")); err != nil || st.Mode()&0o100 == 0 {
		t.Errorf("shipped program: %v, %v: want it executable", st, err)
	}
}

// TestDeployShipBatch: a batch site's nodes get the binary and the shipped
// files in the work directory of its frontend, whose home they share,
// once for the site (its bytes counted once); a batch site without a
// frontend gets them in this host's home, where the steps of the
// allocation gridtui runs in start; a second deploy changes nothing.
func TestDeployShipBatch(t *testing.T) {
	key := newTestKey(t, "")
	files := shipTestFiles(t)
	nodes := func(site string) []inventory.Host {
		return []inventory.Host{{Name: "gtn1", Site: site, Cluster: "c", IdentityFiles: []string{key.file}, Workdir: "work"},
			{Name: "gtn2", Site: site, Cluster: "c", IdentityFiles: []string{key.file}, Workdir: "work"}}
	}
	t.Run("frontend", func(t *testing.T) {
		srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
		host, port := srv.host()
		hosts := nodes("hpc")
		inv := &inventory.Inventory{Sites: []inventory.Site{{Name: "hpc", Launcher: "slurm", Frontend: fmt.Sprintf("tester@%s:%d", host, port),
			Clusters: []inventory.Cluster{{Name: "c", Hosts: hosts}}}}}
		opt := testOptions(writeKnownHosts(t, srv))
		opt.Binary = smallBinary(t, 1<<16)
		opt.Ship = files
		s, err := Deploy(testCtx(t), inv, hosts, opt)
		if err != nil {
			t.Fatal(err)
		}
		counted := 0
		for _, r := range s.Results {
			if r.Phase != PhaseReady || !strings.Contains(r.Detail, "(the nodes share its home): uploaded") || !strings.HasSuffix(r.Detail, "; shipped poisson, grid.dat") {
				t.Errorf("%s: %+v, want the binary and both files on the frontend", r.Host, r)
			}
			if r.Bytes > 0 {
				counted++
			}
		}
		checkShipped(t, filepath.Join(srv.home, "work"), files)
		if counted != 1 {
			t.Errorf("%d hosts count the frontend's bytes, want one", counted)
		}
		s, err = Deploy(testCtx(t), inv, hosts, opt)
		if r := s.Results[1]; err != nil || !strings.HasSuffix(r.Detail, ": unchanged; unchanged poisson, grid.dat") {
			t.Errorf("redeploy: %+v, %v: want nothing shipped", r, err)
		}
		srv.close()
		s, _ = Deploy(testCtx(t), inv, hosts, opt)
		for _, r := range s.Results {
			if want := "deploy: site hpc: frontend " + inv.Sites[0].Frontend + ": connect to "; r.Phase != PhaseFailed || !strings.HasPrefix(r.Err.Error(), want) {
				t.Errorf("%s with its frontend down: %+v, want %q…", r.Host, r, want)
			}
		}
	})
	t.Run("no frontend", func(t *testing.T) {
		home := t.TempDir()
		t.Setenv("HOME", home)
		hosts := nodes("hpc")
		inv := &inventory.Inventory{Sites: []inventory.Site{{Name: "hpc", Launcher: "slurm", Clusters: []inventory.Cluster{{Name: "c", Hosts: hosts}}}}}
		opt := testOptions(filepath.Join(home, "known_hosts"))
		opt.Binary = smallBinary(t, 1<<16)
		opt.Ship = files
		s, err := Deploy(testCtx(t), inv, hosts, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range s.Results {
			if r.Phase != PhaseReady || !strings.HasPrefix(r.Detail, "on this host, ~/work (no frontend: the nodes share this home when gridtui runs in their allocation): copied 64.0 KiB; shipped poisson, grid.dat") {
				t.Errorf("%s: %+v, want the binary and the files in this host's home", r.Host, r)
			}
		}
		checkShipped(t, filepath.Join(home, "work"), files)
		if got, want := fileSum(t, filepath.Join(home, "work", binaryName)), fileSum(t, opt.Binary); got != want {
			t.Errorf("the worker binary in ~/work has sha256 %s, want %s", got, want)
		}
		s, err = Deploy(testCtx(t), inv, hosts, opt)
		if r := s.Results[0]; err != nil || !strings.HasSuffix(r.Detail, ": unchanged; unchanged poisson, grid.dat") || r.Bytes != 0 {
			t.Errorf("redeploy: %+v, %v: want nothing copied", r, err)
		}
		abs := filepath.Join(t.TempDir(), "scratch")
		one := []inventory.Host{hosts[0]}
		one[0].Workdir = abs
		s, err = Deploy(testCtx(t), inv, one, opt)
		if r := s.Results[0]; err != nil || !strings.HasPrefix(r.Detail, "on this host, "+abs+" (no frontend") {
			t.Errorf("an absolute workdir: %+v, %v: want the files in %s", r, err, abs)
		}
		checkShipped(t, abs, files)
		t.Setenv("HOME", "/")
		inv.Sites[0].Clusters[0].Hosts[0].Workdir = "~"
		s, _ = Deploy(testCtx(t), inv, hosts[:1], opt)
		if r := s.Results[0]; r.Phase != PhaseFailed || !strings.Contains(r.Err.Error(), "would be the home or root directory") {
			t.Errorf("workdir ~: %+v, want the home refused", r)
		}
	})
}

// TestDeployShipLocal: a local host's shipped files land in its own work
// directory, where its worker starts, so that a job names the program by
// its base name there too; a file that cannot be shipped fails every host
// before any is touched.
func TestDeployShipLocal(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	hosts := []inventory.Host{{Name: "alpha-1", Site: "local", Cluster: "alpha"}, {Name: "alpha-2", Site: "local", Cluster: "alpha"}}
	inv := &inventory.Inventory{Sites: []inventory.Site{{Name: "local", Launcher: inventory.LauncherLocal, Clusters: []inventory.Cluster{{Name: "alpha", Hosts: hosts}}}}}
	files := shipTestFiles(t)
	opt := Options{Ship: files}
	s, err := Deploy(testCtx(t), inv, hosts, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range s.Results {
		wd := filepath.Join(state, "gridtui", "local", hosts[i].Name)
		if want := "local process, in " + wd + "; shipped poisson, grid.dat"; r.Phase != PhaseReady || r.Detail != want {
			t.Errorf("%s: %+v, want %q", r.Host, r, want)
		}
		checkShipped(t, wd, files)
	}
	s, err = Deploy(testCtx(t), inv, hosts, opt)
	if r := s.Results[0]; err != nil || !strings.HasSuffix(r.Detail, "; unchanged poisson, grid.dat") || r.Bytes != 0 {
		t.Errorf("redeploy: %+v, %v: want nothing copied", r, err)
	}
	if s, err := Deploy(testCtx(t), inv, hosts, Options{}); err != nil || s.Results[0].Detail != "local" {
		t.Errorf("nothing to ship: %+v, %v", s.Results, err)
	}
	opt.Ship = []string{files[0], filepath.Join(t.TempDir(), "missing")}
	os.RemoveAll(filepath.Join(state, "gridtui"))
	s, err = Deploy(testCtx(t), inv, hosts, opt)
	for _, r := range s.Results {
		if err == nil || r.Phase != PhaseFailed || !strings.Contains(r.Err.Error(), "missing: no such file") {
			t.Errorf("%s: %+v, %v: want it failed naming the missing file", r.Host, r, err)
		}
	}
	if _, err := os.Stat(filepath.Join(state, "gridtui")); err == nil {
		t.Error("a host was touched although a file to ship is missing")
	}
}
