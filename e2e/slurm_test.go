//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSlurmSite runs cluster beta as a Slurm cluster behind its frontend:
// deploy goes to the frontend's (shared) home; a run waits, its allocation
// pending with Slurm's reason in the run's log, while another allocation
// holds b1, then runs across both sites; and no allocation and no worker
// is left after it, after Ctrl-C while it runs, or after one of its workers
// is killed and the run recovered with a new step on the same node.
func TestSlurmSite(t *testing.T) {
	for _, tool := range []string{"slurmctld", "slurmd", "salloc", "squeue", "munged", "nsenter"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (apt-get install slurmctld slurmd slurm-client munge)", tool)
		}
	}
	g := newGridT(t, Config{HostsA: 1, HostsB: 2, Frontend: true, Slurm: true})
	n := len(g.Hosts)
	r := gridtui(t, g, g.SitesFile, deployTimeout, "deploy")
	if r.code != 0 || !strings.Contains(r.out, fmt.Sprintf("%d of %d hosts ok", n, n)) || !strings.Contains(r.out, "nodes share its home") {
		t.Fatalf("deploy: exit %d, want every host ok, beta's through its frontend:\n%s", r.code, r.out)
	}
	args := []string{"--nodes", fmt.Sprint(n), "--scheme", "sync", "--n", "24", "--eps", "1e-6", "--wall-time", "2m"}

	release := holdSlurm(t, g, "b1")
	run := startRun(t, g, 3*time.Minute, args...)
	waitLogged(t, run, 60*time.Second, "allocation pending", "Slurm job", "Resources")
	release()
	out := run.wait(t)
	if out.code != 0 || out.report == nil || out.report.Outcome != "ok" || len(out.report.Nodes) != n {
		t.Fatalf("run on the Slurm site: exit %d, report %+v", out.code, out.report)
	}
	checkSlurmClean(t, g, "after a run")

	// Ctrl-C while it runs.
	run = startRun(t, g, 3*time.Minute, "--nodes", fmt.Sprint(n), "--scheme", "async", "--n", "48", "--eps", "1e-14", "--wall-time", "2m")
	run.waitIterations(t, 20, 90*time.Second)
	run.cmd.Process.Signal(os.Interrupt)
	<-run.done
	checkSlurmClean(t, g, "after Ctrl-C")

	// A killed worker: the run recovers, its part restarted from the
	// checkpoints by a new worker on the same node, a step of the run's own
	// allocation (a new allocation of the node would wait behind it).
	const eps = 1e-9
	run = startRun(t, g, 3*time.Minute, "--nodes", fmt.Sprint(n), "--scheme", "async", "--n", "48", "--eps", fmt.Sprint(eps), "--wall-time", "2m",
		"--checkpoint-every", "20")
	run.waitIterations(t, 80, 90*time.Second)
	pid := workerPID(t, g, "b2")
	syscall.Kill(pid, syscall.SIGKILL)
	out = run.wait(t)
	if rep := out.report; out.code != 0 || rep == nil || rep.Outcome != "ok" || !rep.Checked || !(rep.Residual < eps) {
		t.Errorf("run with a killed worker on b2: exit %d, want it recovered, ok with a true residual below %g; report %+v", out.code, eps, rep)
	} else if !slices.ContainsFunc(rep.Recoveries, func(r recoveryRep) bool { return r.Node == "b2" && r.To == "b2" && r.How == "new worker on its host" }) {
		t.Errorf("recoveries %+v, want b2's part on a new worker on b2", rep.Recoveries)
	}
	checkSlurmClean(t, g, "after a killed worker")
}

// holdSlurm allocates node as the frontend's user until the returned
// function is called: another user's job holding the node.
func holdSlurm(t *testing.T, g *Grid, node string) func() {
	t.Helper()
	c := g.SlurmCommand(context.Background(), "runuser", "-u", g.Frontend.User, "--", "env", "SLURM_CONF="+g.slurmConf(),
		"salloc", "-J", "holder", "-w", node, "sh", "-c", "echo held; exec cat >/dev/null")
	in, _ := c.StdinPipe()
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "held") {
		t.Fatalf("holder allocation of %s: %q %v", node, line, err)
	}
	done := false
	stop := func() {
		if !done {
			done = true
			in.Close()
			c.Wait()
		}
	}
	t.Cleanup(stop)
	return stop
}

// waitLogged waits until the run logs a line with every one of words.
func waitLogged(t *testing.T, r *liveRun, timeout time.Duration, words ...string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		ok := r.out.logged(words...)
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.done:
			t.Fatalf("the run ended before logging %q:\n%s", words, r.out.raw)
		case <-time.After(200 * time.Millisecond):
		}
	}
	t.Fatalf("the run did not log %q within %v", words, timeout)
}

// workerPID finds the pid of the gridtui worker running on host (a Slurm
// step: a process of the frontend's user in host's namespace).
func workerPID(t *testing.T, g *Grid, host string) int {
	t.Helper()
	h := g.Host(host)
	out, err := run(context.Background(), "ip", "netns", "pids", h.Netns)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(out) {
		var pid int
		fmt.Sscan(f, &pid)
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if strings.HasSuffix(strings.ReplaceAll(string(cmd), "\x00", " "), "gridtui worker ") {
			return pid
		}
	}
	t.Fatalf("no gridtui worker in %s's namespace", host)
	return 0
}

// checkSlurmClean checks that gridtui left no allocation and no worker.
func checkSlurmClean(t *testing.T, g *Grid, when string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for strings.Contains(g.SlurmJobs(context.Background()), "gridtui") && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	if j := g.SlurmJobs(context.Background()); strings.Contains(j, "gridtui") {
		t.Errorf("%s: gridtui's allocation left: %s", when, j)
	}
	for _, h := range g.Cluster("beta") {
		out, _ := run(context.Background(), "ip", "netns", "pids", h.Netns)
		for _, f := range strings.Fields(out) {
			cmd, _ := os.ReadFile("/proc/" + f + "/cmdline")
			if strings.Contains(string(cmd), "gridtui\x00worker") {
				t.Errorf("%s: a worker is left on %s (pid %s)", when, h.Name, f)
			}
		}
	}
}
