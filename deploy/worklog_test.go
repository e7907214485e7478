package deploy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// TestWorkerLogKeptOnHost checks that workers are told to log into a file
// of their work directory, and that ReadWorkerLog reads it back, locally
// and over SSH.
func TestWorkerLogKeptOnHost(t *testing.T) {
	id, secret := NewRunSecret()
	if b := BootFor(id, secret)(inventory.Host{Name: "alpha-1"}); b.LogFile != WorkerLogFile("alpha-1") {
		t.Fatalf("boot log file %q, want %q", b.LogFile, WorkerLogFile("alpha-1"))
	}
	for _, kind := range []string{"local", "remote"} {
		t.Run(kind, func(t *testing.T) {
			inv, h, opt := stopFixture(t, kind)
			wd := stopWorkdir(t, kind, h)
			if err := os.MkdirAll(wd, 0o700); err != nil {
				t.Fatal(err)
			}
			want := "time=2026-01-02T03:04:05Z level=INFO msg=\"engine: run ended\"\n"
			if err := os.WriteFile(filepath.Join(wd, WorkerLogFile("n-1")), []byte(want), 0o600); err != nil {
				t.Fatal(err)
			}
			got, where, err := ReadWorkerLog(testCtx(t), inv, h, "n-1", opt)
			if err != nil || string(got) != want || !strings.Contains(where, WorkerLogFile("n-1")) {
				t.Fatalf("ReadWorkerLog = %q from %s, %v; want %q", got, where, err, want)
			}
			if _, _, err := ReadWorkerLog(testCtx(t), inv, h, "nobody", opt); err == nil || !strings.Contains(err.Error(), h.Name) {
				t.Errorf("reading a missing log: %v", err)
			}
		})
	}
}

// TestReadWorkerLogBatch checks that a batch site's node's log, which the
// node's step wrote in the work directory it shares with the site's
// frontend, is read through the frontend (the node itself refuses SSH, and
// its name does not even resolve here), or in this host's home when the
// site has no frontend; and that a log that cannot be read is an error
// naming the node, the way it was read and the reason.
func TestReadWorkerLogBatch(t *testing.T) {
	key := newTestKey(t, "")
	want := "time=2026-01-02T03:04:05Z level=INFO msg=\"engine: run ended\" node=gtn1\n"
	hosts := []inventory.Host{{Name: "gtn1", Site: "hpc", Cluster: "c", IdentityFiles: []string{key.file}, Workdir: "work"}}
	t.Run("frontend", func(t *testing.T) {
		srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
		host, port := srv.host()
		front := fmt.Sprintf("tester@%s:%d", host, port)
		inv := &inventory.Inventory{Sites: []inventory.Site{{Name: "hpc", Launcher: "slurm", Frontend: front, Clusters: []inventory.Cluster{{Name: "c", Hosts: hosts}}}}}
		opt := testOptions(writeKnownHosts(t, srv))
		os.MkdirAll(filepath.Join(srv.home, "work"), 0o700)
		if err := os.WriteFile(filepath.Join(srv.home, "work", WorkerLogFile("gtn1")), []byte(want), 0o600); err != nil {
			t.Fatal(err)
		}
		got, where, err := ReadWorkerLog(testCtx(t), inv, hosts[0], "gtn1", opt)
		if err != nil || string(got) != want || where != "127.0.0.1:work/"+WorkerLogFile("gtn1") {
			t.Fatalf("ReadWorkerLog = %q from %s, %v; want %q from the frontend", got, where, err, want)
		}
		_, _, err = ReadWorkerLog(testCtx(t), inv, hosts[0], "gtn2", opt)
		if err == nil || !strings.HasPrefix(err.Error(), "deploy: log of gtn2 on gtn1 (through site hpc's frontend "+front+", whose home the nodes share): run \"cd\" on ") ||
			!strings.Contains(err.Error(), WorkerLogFile("gtn2")) {
			t.Errorf("a missing log: %v", err)
		}
		srv.close()
		inv.Sites[0].Frontend = fmt.Sprintf("tester@127.0.0.1:%d", closedPort(t))
		_, _, err = ReadWorkerLog(testCtx(t), inv, hosts[0], "gtn1", opt)
		if err == nil || !strings.HasPrefix(err.Error(), "deploy: log of gtn1 on gtn1 (through site hpc's frontend tester@127.0.0.1:") ||
			!strings.Contains(err.Error(), "connect to ") || strings.Contains(err.Error(), "deploy: deploy:") {
			t.Errorf("an unreachable frontend: %v", err)
		}
	})
	t.Run("no frontend", func(t *testing.T) {
		home := t.TempDir()
		t.Setenv("HOME", home)
		inv := &inventory.Inventory{Sites: []inventory.Site{{Name: "hpc", Launcher: "slurm", Clusters: []inventory.Cluster{{Name: "c", Hosts: hosts}}}}}
		os.MkdirAll(filepath.Join(home, "work"), 0o700)
		p := filepath.Join(home, "work", WorkerLogFile("gtn1"))
		if err := os.WriteFile(p, []byte(want), 0o600); err != nil {
			t.Fatal(err)
		}
		got, where, err := ReadWorkerLog(testCtx(t), inv, hosts[0], "gtn1", Options{})
		if err != nil || string(got) != want || where != p {
			t.Fatalf("ReadWorkerLog = %q from %s, %v; want %q from %s", got, where, err, want, p)
		}
		_, _, err = ReadWorkerLog(testCtx(t), inv, hosts[0], "gtn2", Options{})
		wantErr := "deploy: log of gtn2 on gtn1 (site hpc has no frontend: read in this host's home, which the nodes share when gridtui runs in their allocation): open " +
			filepath.Join(home, "work", WorkerLogFile("gtn2")) + ": no such file or directory"
		if err == nil || err.Error() != wantErr || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a missing log: %v, want %q", err, wantErr)
		}
	})
}
