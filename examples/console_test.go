package examples_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// console drives a program's console in a tmux session of its own.
type console struct {
	t            *testing.T
	sock, target string
}

// startConsole starts `bin --sites ”` (the embedded local grid) in a
// detached tmux session of size 120×40, in dir with HOME, the results store
// and the log under it. The session is killed when the test ends.
func startConsole(t *testing.T, bin, dir string) *console {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	c := &console{t: t, sock: fmt.Sprintf("gridtui-examples-%d", os.Getpid()), target: "console"}
	env := fmt.Sprintf("HOME=%q XDG_CONFIG_HOME=%q GRIDTUI_DATA_DIR=%q GRIDTUI_LOG=%q GRIDTUI_SITES=",
		dir, filepath.Join(dir, ".config"), filepath.Join(dir, "store"), filepath.Join(dir, "console.log"))
	shell := fmt.Sprintf("cd %q && env %s %q --sites ''; echo console-exited-$?; sleep 60", dir, env, bin)
	if out, err := exec.Command("tmux", "-L", c.sock, "new-session", "-d", "-s", c.target, "-x", "120", "-y", "40", shell).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", c.sock, "kill-server").Run() })
	return c
}

func (c *console) screen() string {
	out, _ := exec.Command("tmux", "-L", c.sock, "capture-pane", "-p", "-t", c.target).Output()
	return string(out)
}

func (c *console) keys(keys ...string) {
	c.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-L", c.sock, "send-keys", "-t", c.target}, keys...)...).CombinedOutput(); err != nil {
		c.t.Fatalf("tmux send-keys %v: %v\n%s", keys, err, out)
	}
}

// waitFor waits until the screen shows one of texts and returns the screen.
func (c *console) waitFor(timeout time.Duration, texts ...string) string {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		s := c.screen()
		for _, w := range texts {
			if strings.Contains(s, w) {
				return s
			}
		}
		select {
		case <-ctx.Done():
			c.t.Fatalf("the console did not show %q within %v; the screen:\n%s", texts, timeout, s)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TestRodConsole opens the example binary's console (it is gridtui's, with
// rod registered), loads a job file of the application rod in Compose,
// runs it synchronously on cluster alpha of the local grid and reads the
// report: every node terminated and the values are the serial reference's
// after the same iterations (the application's own check). Quitting leaves
// no worker running.
func TestRodConsole(t *testing.T) {
	bin := buildRod(t)
	dir := t.TempDir()
	job := "name = \"rod-console\"\napp = \"rod\"\nscheme = \"sync\"\n\n[params]\nn = \"32\"\niters = \"300\"\n\n[nodes]\nclusters = [\"alpha\"]\n"
	if err := os.WriteFile(filepath.Join(dir, "job.toml"), []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startConsole(t, bin, dir)
	c.waitFor(30*time.Second, "alpha-1")
	c.keys("3")
	c.waitFor(10*time.Second, "Job file")
	c.keys("C-o")
	c.waitFor(10*time.Second, "loaded job.toml")
	c.waitFor(10*time.Second, "ready: 4 nodes")
	c.keys("r")
	s := c.waitFor(2*time.Minute, " · finished · ", " · failed · ")
	if !strings.Contains(s, " · finished · ") || !strings.Contains(s, "T terminated 4") {
		t.Fatalf("the run of rod did not finish on 4 nodes:\n%s", s)
	}
	c.keys("o")
	// The report's own header: the Run view's summary shows "application
	// check:" too, before the report opens.
	s = c.waitFor(10*time.Second, "run rod-console: rod,")
	for _, want := range []string{"run rod-console: rod,", "outcome:   ok", "application check: OK", "max |u − serial reference| after 300 iterations: 0"} {
		if !strings.Contains(s, want) {
			t.Errorf("the report lacks %q:\n%s", want, s)
		}
	}
	c.keys("q")
	c.waitFor(10*time.Second, "console-exited-0")
	assertNoRodLeft(t, bin)
}
