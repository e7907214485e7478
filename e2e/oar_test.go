//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOARSite runs cluster beta as an OAR cluster behind its frontend, as
// on Grid'5000: deploy goes to the frontend's (shared) home; a run waits,
// its job pending with OAR's state in the run's log, while another job
// holds b1, then runs across both sites with its workers started by
// oarsh; and no job of gridtui's and no worker is left after it, after
// Ctrl-C while it runs, or after one of its workers is killed and the run
// recovered with a new worker on the same node, in the same job.
//
// It takes minutes (OAR's scheduling rounds) and changes this machine's OAR
// configuration while it runs (restored by Down): it runs only when
// GRIDTUI_E2E_OAR is set.
func TestOARSite(t *testing.T) {
	if os.Getenv("GRIDTUI_E2E_OAR") == "" {
		t.Skip("set GRIDTUI_E2E_OAR=1 to run a real OAR in the grid (minutes; root)")
	}
	if tool := oarMissing(); tool != "" {
		t.Skipf("%s not installed (apt-get install oar-server oar-server-pgsql oar-node oar-user oar-user-pgsql postgresql)", tool)
	}
	if exec.Command("pgrep", "-x", "Almighty").Run() == nil {
		t.Skip("an OAR server (Almighty) already runs on this machine: deploy's TestOAR*?")
	}
	g := newGridT(t, Config{HostsA: 1, HostsB: 2, Frontend: true, OAR: true})
	n := len(g.Hosts)
	r := gridtui(t, g, g.SitesFile, deployTimeout, "deploy")
	if r.code != 0 || !strings.Contains(r.out, fmt.Sprintf("%d of %d hosts ok", n, n)) || !strings.Contains(r.out, "nodes share its home") {
		t.Fatalf("deploy: exit %d, want every host ok, beta's through its frontend:\n%s", r.code, r.out)
	}
	// OAR starts a job in a few of its scheduling rounds, and deletes one
	// in a few more: minutes on a loaded machine.
	const runTimeout = 8 * time.Minute
	args := []string{"--nodes", fmt.Sprint(n), "--scheme", "sync", "--n", "24", "--eps", "1e-6", "--wall-time", "5m"}

	release := holdOAR(t, g, "b1")
	run := startRun(t, g, runTimeout, args...)
	waitLogged(t, run, 3*time.Minute, "allocation pending", "OAR job")
	release()
	out := run.wait(t)
	if out.code != 0 || out.report == nil || out.report.Outcome != "ok" || len(out.report.Nodes) != n {
		t.Fatalf("run on the OAR site: exit %d, report %+v\n%s", out.code, out.report, out.raw)
	}
	checkOARClean(t, g, "after a run")

	oarConsoleRun(t, g)
	checkOARClean(t, g, "after the console's run")

	// Ctrl-C while it runs.
	long := []string{"--nodes", fmt.Sprint(n), "--scheme", "async", "--n", "48", "--eps", "1e-14", "--wall-time", "5m"}
	run = startRun(t, g, runTimeout, long...)
	run.waitIterations(t, 20, 5*time.Minute)
	run.cmd.Process.Signal(os.Interrupt)
	<-run.done
	checkOARClean(t, g, "after Ctrl-C")

	// A killed worker: the run recovers, its part restarted from the
	// checkpoints by a new worker on the same node, started by oarsh in the
	// run's own job (a new job of the node would wait behind it).
	const eps = 1e-9
	run = startRun(t, g, runTimeout, "--nodes", fmt.Sprint(n), "--scheme", "async", "--n", "48", "--eps", fmt.Sprint(eps), "--wall-time", "5m",
		"--checkpoint-every", "20")
	run.waitIterations(t, 80, 5*time.Minute)
	syscall.Kill(workerPID(t, g, "b2"), syscall.SIGKILL)
	out = run.wait(t)
	if rep := out.report; out.code != 0 || rep == nil || rep.Outcome != "ok" || !rep.Checked || !(rep.Residual < eps) {
		t.Errorf("run with a killed worker on b2: exit %d, want it recovered, ok with a true residual below %g; report %+v", out.code, eps, rep)
	} else if !slices.ContainsFunc(rep.Recoveries, func(r recoveryRep) bool { return r.Node == "b2" && r.To == "b2" && r.How == "new worker on its host" }) {
		t.Errorf("recoveries %+v, want b2's part on a new worker on b2", rep.Recoveries)
	}
	checkOARClean(t, g, "after a killed worker")
}

// oarConsoleRun drives a job through OAR from the console (in tmux, in the
// console namespace), as a user would: a job file across both sites
// loaded in Compose and run with r while another job holds b1; the Run
// view says the allocation is pending, and once the holder is gone the
// run finishes; the console quits cleanly.
func oarConsoleRun(t *testing.T, g *Grid) {
	t.Helper()
	job := "name = \"oar-console\"\napp = \"obstacle\"\nscheme = \"sync\"\nwall_time = \"5m\"\n\n" +
		"[obstacle]\nn = 24\neps = 1e-6\n\n[nodes]\nclusters = [\"alpha\", \"beta\"]\n"
	if err := os.WriteFile(filepath.Join(g.ConsoleHome, "job.toml"), []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	release := holdOAR(t, g, "b1")
	waitFor, keys := tmuxConsole(t, g, gridtuiBinary(t))
	waitFor(time.Minute, "Sites")
	keys("3")
	waitFor(30*time.Second, "Job file")
	keys("C-o")
	waitFor(30*time.Second, "loaded job.toml")
	waitFor(time.Minute, "ready: 3 nodes")
	keys("r")
	s := waitFor(3*time.Minute, "allocation pending", " · failed · ")
	if strings.Contains(s, " · failed · ") {
		t.Fatalf("the console's run failed before its allocation:\n%s", s)
	}
	t.Logf("the Run view while OAR holds the job:\n%s", s)
	release()
	s = waitFor(8*time.Minute, " · finished · ", " · failed · ")
	if !strings.Contains(s, " · finished · ") {
		t.Fatalf("the console's run through OAR did not finish:\n%s", s)
	}
	keys("q")
	waitFor(30*time.Second, "console-exited-0")
}

// holdOAR submits, as the frontend's user, a job holding node until the
// returned function deletes it: another user's job in the way.
func holdOAR(t *testing.T, g *Grid, node string) func() {
	t.Helper()
	f := g.Frontend
	sub := g.OARCommand(context.Background(), "runuser", "-u", f.User, "--", "env", "HOME="+f.Home, "PWD="+f.Home,
		"oarsub", "-n", oarHolder, "-l", "nodes=1,walltime=0:15:00", "-p", "network_address='"+node+"'", "sleep 900")
	sub.Dir = f.Home
	out, err := sub.CombinedOutput()
	id := ""
	if i := strings.Index(string(out), "OAR_JOB_ID="); i >= 0 {
		id = strings.TrimSpace(strings.SplitN(string(out)[i+len("OAR_JOB_ID="):], "\n", 2)[0])
	}
	if err != nil || id == "" {
		t.Fatalf("holder job on %s: %v: %s", node, err, out)
	}
	deadline := time.Now().Add(4 * time.Minute)
	for {
		st, _ := g.OARCommand(context.Background(), "oarstat", "-s", "-j", id).Output()
		if strings.Contains(string(st), "Running") {
			break
		}
		if time.Now().After(deadline) {
			all, _ := g.OARCommand(context.Background(), "oarstat", "-f", "-j", id).CombinedOutput()
			t.Fatalf("holder job %s not running: %s", id, all)
		}
		time.Sleep(time.Second)
	}
	done := false
	stop := func() {
		if !done {
			done = true
			g.OARCommand(context.Background(), "oardel", id).Run()
		}
	}
	t.Cleanup(stop)
	return stop
}

// checkOARClean checks that gridtui left no OAR job (OAR ends a deleted
// job in a few rounds) and no worker.
func checkOARClean(t *testing.T, g *Grid, when string) {
	t.Helper()
	left := func() string {
		var out []string
		for _, l := range strings.Split(g.OARJobs(context.Background()), "\n") {
			if f := strings.Fields(l); len(f) == 4 && f[3] == "gridtui" {
				out = append(out, l)
			}
		}
		return strings.Join(out, "; ")
	}
	deadline := time.Now().Add(3 * time.Minute)
	for left() != "" && time.Now().Before(deadline) {
		time.Sleep(time.Second)
	}
	if j := left(); j != "" {
		all, _ := g.OARCommand(context.Background(), "oarstat").CombinedOutput()
		t.Errorf("%s: gridtui's OAR job left: %s\n%s", when, j, all)
	}
	// Nothing of gridtui's runs as the frontend's user any more: the script
	// holding the job, its oarsh steps, the job's own sleep on the nodes.
	var procs []string
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(time.Second) {
		procs = gridtuiProcesses(g.Frontend.User)
		if len(procs) == 0 || time.Now().After(end) {
			break
		}
	}
	for _, p := range procs {
		t.Errorf("%s: process left: %s", when, p)
	}
	for _, h := range g.Cluster("beta") {
		out, _ := exec.Command("ip", "netns", "pids", h.Netns).Output()
		for _, f := range strings.Fields(string(out)) {
			cmd, _ := os.ReadFile("/proc/" + f + "/cmdline")
			if strings.Contains(string(cmd), "gridtui\x00worker") {
				t.Errorf("%s: a worker is left on %s (pid %s)", when, h.Name, f)
			}
		}
	}
}

// gridtuiProcesses lists the processes of user that gridtui started through
// OAR: the job's sleep, the script holding it (its cat), oarsh, workers.
func gridtuiProcesses(user string) []string {
	uid, ok := uidOf(user)
	if !ok {
		return nil
	}
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		status, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil || statusField(string(status), "Uid:") != uid {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		line := strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
		for _, w := range []string{"2147483647", "oarsh", "oarstat", "gridtui", "cat"} {
			if strings.Contains(line, w) {
				out = append(out, e.Name()+" "+line)
				break
			}
		}
	}
	return out
}
