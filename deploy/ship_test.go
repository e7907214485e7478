package deploy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
			s, err := Deploy(testCtx(t), sshInventory(), []Host{h}, opt)
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
			s, err = Deploy(testCtx(t), sshInventory(), []Host{h}, opt)
			if r := s.Results[0]; err != nil || r.Bytes != 0 || r.Detail != "unchanged; unchanged poisson, grid.dat" {
				t.Fatalf("redeploy: %+v, %v: want nothing shipped", r, err)
			}
			os.WriteFile(data, []byte("4 5 6\n"), 0o644)
			s, err = Deploy(testCtx(t), sshInventory(), []Host{h}, opt)
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
			s, err := Deploy(testCtx(t), sshInventory(), []Host{h}, opt)
			if r := s.Results[0]; err == nil || r.Phase != PhaseFailed || !strings.Contains(r.Err.Error(), want) {
				t.Errorf("ship %s: %+v, %v; want the host failed with %q", f, r, err, want)
			}
		}
	})
}
