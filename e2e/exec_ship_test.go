//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExecShipAndConsole runs the exec examples the ways a user without a
// shared file system does, over SSH across both clusters: deploy --ship
// copies the C program beside every worker and the job names it by its
// base name; the Python example goes the same way with its module and
// libgridhpc.so (its arguments name the script relative to the worker's
// directory); a cluster whose
// programs entry points at nothing fails the run before it starts, naming
// the host and the path; and the console, in tmux, runs the C example
// from a job file to its report.
func TestExecShipAndConsole(t *testing.T) {
	dir := programDir(t)
	prog := buildC(t, dir, "poisson", "examples/c-poisson/poisson.c")
	g := newGridT(t, Config{HostsA: 2, HostsB: 2})
	deployOrSkip(t, g)
	const n = "16"
	poissonArgs := []string{"--param", "items=" + n, "--param", "unit=256", "--param", "eps=1e-8", "--wall-time", "2m"}
	t.Run("ship", func(t *testing.T) {
		if r := gridtui(t, g, g.SitesFile, deployTimeout, "deploy", "--ship", prog); r.code != 0 || !strings.Contains(r.out, "poisson") {
			t.Fatalf("deploy --ship: exit %d:\n%s", r.code, r.out)
		}
		want := fileSum(prog)
		for _, h := range g.Hosts {
			if got := fileSum(filepath.Join(h.Home, ".gridtui", "poisson")); got != want {
				t.Errorf("%s: the shipped program has sha256 %s, want %s", h.Name, got, want)
			}
		}
		out := runJob(t, g, append([]string{"--app", "exec", "--nodes", "4", "--scheme", "sync", "--param", "program=poisson",
			"--param", "args=" + n}, poissonArgs...)...)
		if rep := out.report; out.code != 0 || rep == nil || rep.Outcome != "ok" || !(rep.Residual < 1e-8) {
			t.Fatalf("the shipped program's run: exit %d, report %+v\n%s", out.code, rep, tail(out.raw, 20))
		}
	})
	t.Run("python", func(t *testing.T) {
		// The distribution's python3, which the hosts' workers find too.
		if exec.Command("/usr/bin/python3", "-c", "import numpy").Run() != nil {
			t.Skip("no /usr/bin/python3 with NumPy (Debian: apt-get install python3-numpy)")
		}
		lib := filepath.Join(dir, "libgridhpc.so")
		root, err := filepath.Abs("..") // the console runs deploy in its own directory
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("gcc", "-O2", "-shared", "-fPIC", "-D_GNU_SOURCE", "-o", lib, "apps/exec/gridhpc/gridhpc.c")
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, b)
		}
		ship := []string{"deploy", "--ship", lib, "--ship", filepath.Join(root, "apps/exec/gridhpc/gridhpc.py"),
			"--ship", filepath.Join(root, "examples/python-poisson/poisson.py")}
		if r := gridtui(t, g, g.SitesFile, deployTimeout, ship...); r.code != 0 {
			t.Fatalf("deploy --ship: exit %d:\n%s", r.code, r.out)
		}
		out := runJob(t, g, append([]string{"--app", "exec", "--nodes", "4", "--scheme", "async", "--param", "program=/usr/bin/python3",
			"--param", "args=poisson.py " + n}, poissonArgs...)...)
		if rep := out.report; out.code != 0 || rep == nil || rep.Outcome != "ok" || !(rep.Residual < 1e-8) {
			t.Fatalf("the shipped Python example's run: exit %d, report %+v\n%s", out.code, rep, tail(out.raw, 20))
		}
	})
	t.Run("missing", func(t *testing.T) {
		out := runJob(t, g, append([]string{"--app", "exec", "--nodes", "4", "--scheme", "sync", "--param", "program=" + prog,
			"--param", "programs=beta=/nonexistent/poisson", "--param", "args=" + n}, poissonArgs...)...)
		rep := out.report
		if out.code == 0 || rep == nil {
			t.Fatalf("exit %d, report %+v: want a failed run", out.code, rep)
		}
		for _, want := range []string{"exec: program /nonexistent/poisson on host ", "no such file"} {
			if !strings.Contains(rep.Cause, want) && !strings.Contains(out.raw, want) {
				t.Errorf("cause %q, want it to contain %q", rep.Cause, want)
			}
		}
	})
	t.Run("console", func(t *testing.T) {
		job := "name = \"c-poisson-console\"\napp = \"exec\"\nscheme = \"sync\"\n\n[params]\nprogram = \"" + prog + "\"\nargs = \"" + n +
			"\"\nitems = \"" + n + "\"\nunit = \"256\"\neps = \"1e-8\"\n\n[nodes]\nclusters = [\"alpha\", \"beta\"]\n"
		if err := os.WriteFile(filepath.Join(g.ConsoleHome, "job.toml"), []byte(job), 0o644); err != nil {
			t.Fatal(err)
		}
		// The console of gridtui itself, driven like the rod example's.
		waitFor, keys := tmuxConsole(t, g, gridtuiBinary(t))
		waitFor(time.Minute, "Sites")
		keys("3")
		waitFor(30*time.Second, "Job file")
		keys("C-o")
		waitFor(30*time.Second, "loaded job.toml")
		waitFor(time.Minute, "ready: ")
		keys("r")
		s := waitFor(3*time.Minute, " · finished · ", " · failed · ")
		if !strings.Contains(s, " · finished · ") {
			t.Fatalf("the console's run of the C example did not finish:\n%s", s)
		}
		keys("o")
		s = waitFor(30*time.Second, "sum of the values")
		for _, want := range []string{"run c-poisson-console: exec", "outcome:   ok", "sum of the values"} {
			if !strings.Contains(s, want) {
				t.Errorf("the console's report lacks %q:\n%s", want, s)
			}
		}
		keys("q")
		waitFor(30*time.Second, "console-exited-0")
	})
}
