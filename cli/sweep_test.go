package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// cancelAt is a writer that cancels a context when a line contains mark.
type cancelAt struct {
	mu     sync.Mutex
	mark   string
	cancel context.CancelFunc
	b      bytes.Buffer
}

func (c *cancelAt) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b.Write(p)
	if c.cancel != nil && strings.Contains(string(p), c.mark) {
		c.cancel()
	}
	return len(p), nil
}

// TestSweep100 runs a sweep of 100 instances of a BSP program on the local
// grid, 4 at once: instance 37 fails once and is retried; the sweep is
// interrupted after 50 instances (as Ctrl-C does), then --resume runs only
// the rest, saying why; the table has all 100, right.
func TestSweep100(t *testing.T) {
	if testing.Short() {
		t.Skip("100 runs: not in -short")
	}
	if _, err := osexec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (Debian: apt-get install gcc)")
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "failonce")
	lib := filepath.Join("..", "apps", "bsp", "bsplib")
	if out, err := osexec.Command("cc", "-O2", "-I"+lib, filepath.Join("testdata", "sweep", "failonce.c"), filepath.Join(lib, "bsp.c"), "-o", prog).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	logPath, table := filepath.Join(dir, "sweep.log"), filepath.Join(dir, "table.csv")
	args := []string{"run", "--app", "bsp", "--nodes", "1", "--no-record", "--param", "program=" + prog,
		"--sweep", "args=0:99", "--throttle", "4", "--retries", "1", "--sweep-log", logPath, "--table", table}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := &cancelAt{mark: " 50/100 done", cancel: cancel}
	root := newRootCmd()
	root.SetArgs(args)
	root.SetErr(stop)
	root.SetOut(&bytes.Buffer{})
	if err := root.ExecuteContext(ctx); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("interrupted sweep: %v", err)
	}
	first := readTable(t, table)
	done := 0
	for _, r := range first[1:] {
		if r[2] == "ok" {
			done++
		}
	}
	if done < 50 || done == 100 {
		t.Fatalf("%d instances done before the interruption", done)
	}
	root = newRootCmd()
	root.SetArgs(append(args, "--resume"))
	var errb bytes.Buffer
	root.SetErr(&errb)
	root.SetOut(&bytes.Buffer{})
	if err := root.Execute(); err != nil {
		t.Fatalf("resumed sweep: %v\n%s", err, errb.String())
	}
	rows := readTable(t, table)
	if len(rows) != 101 || strings.Join(rows[0][:4], ",") != "index,args,status,attempts" {
		t.Fatalf("table: %d rows, header %v", len(rows), rows[0])
	}
	reran := 0
	for i, r := range rows[1:] {
		if r[1] != strings.TrimSpace(r[1]) || r[2] != "ok" {
			t.Errorf("instance %d: %v", i, r)
		}
		if r[len(r)-1] != "" {
			reran++
			if first[i+1][2] == "ok" {
				t.Errorf("instance %d ran again though it was done: %v", i, r)
			}
		}
	}
	if reran != 100-done {
		t.Errorf("%d instances say why they ran again, %d were not done", reran, 100-done)
	}
	if b, _ := os.ReadFile(logPath); strings.Count(string(b), `"args":"37"`) < 2 && first[38][3] != "2" {
		t.Errorf("instance 37 was not retried: %v", first[38])
	}
}

func readTable(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
