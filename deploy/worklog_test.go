package deploy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkerLogKeptOnHost checks that workers are told to log into a file
// of their work directory, and that ReadWorkerLog reads it back, locally
// and over SSH.
func TestWorkerLogKeptOnHost(t *testing.T) {
	id, secret := NewRunSecret()
	if b := BootFor(id, secret)(Host{Name: "alpha-1"}); b.LogFile != WorkerLogFile("alpha-1") {
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
