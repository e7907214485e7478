//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSlurmShipAndLogs runs the C example on a grid whose cluster beta is a
// Slurm cluster behind its frontend: deploy --ship puts the program in the
// work directory that beta's nodes share with the frontend (and beside the
// worker on alpha's SSH host), a run across both sites names it by its base
// name, and gridtui logs reads a Slurm node's worker log through the
// frontend (the node itself is not reachable over SSH) and names the way
// and the reason for a log it cannot read.
func TestSlurmShipAndLogs(t *testing.T) {
	dir := programDir(t)
	prog := buildC(t, dir, "poisson", "examples/c-poisson/poisson.c")
	g := newGridT(t, Config{HostsA: 1, HostsB: 2, Frontend: true, Slurm: true})
	n := len(g.Hosts)
	r := gridtui(t, g, g.SitesFile, deployTimeout, "deploy", "--ship", prog)
	if r.code != 0 || !strings.Contains(r.out, fmt.Sprintf("%d of %d hosts ok", n, n)) || !strings.Contains(r.out, "(the nodes share its home): uploaded") ||
		!strings.Contains(r.out, "; shipped poisson") {
		t.Fatalf("deploy --ship: exit %d, want every host ok and poisson shipped, beta's through its frontend:\n%s", r.code, r.out)
	}
	want := fileSum(prog)
	homes := map[string]string{"frontend " + g.Frontend.Name: g.Frontend.Home}
	for _, h := range g.Cluster(clusterDefs[0].Name) {
		homes[h.Name] = h.Home
	}
	for who, home := range homes {
		if got := fileSum(filepath.Join(home, ".gridtui", "poisson")); got != want {
			t.Errorf("%s: the shipped program has sha256 %q, want %s", who, got, want)
		}
	}
	const items = "16"
	job := []string{"--app", "exec", "--nodes", fmt.Sprint(n), "--scheme", "sync", "--param", "program=poisson", "--param", "args=" + items,
		"--param", "items=" + items, "--param", "unit=256", "--param", "eps=1e-8", "--wall-time", "2m"}
	out := runJob(t, g, job...)
	if rep := out.report; out.code != 0 || rep == nil || rep.Outcome != "ok" || len(rep.Nodes) != n || !(rep.Residual < 1e-8) {
		t.Fatalf("the shipped program's run on the Slurm site: exit %d, report %+v\n%s", out.code, out.report, tail(out.raw, 20))
	}
	checkSlurmClean(t, g, "after the shipped program's run")
	// The same run, recorded (runJob's are not), for gridtui logs.
	if r := gridtui(t, g, g.SitesFile, 3*time.Minute, append([]string{"run"}, job...)...); r.code != 0 {
		t.Fatalf("the recorded run: exit %d", r.code)
	}
	checkSlurmClean(t, g, "after the recorded run")

	b1 := g.Cluster(clusterDefs[1].Name)[0].Name
	r = gridtui(t, g, g.SitesFile, deployTimeout, "logs", "2", b1) // the grid's only recorded run
	if head := "== " + b1 + " (" + frontendAlias + ":.gridtui/"; r.code != 0 || !strings.Contains(r.out, head) || !strings.Contains(r.out, "worker-"+b1+".log)") ||
		!strings.Contains(r.out, "node="+b1) {
		t.Errorf("logs of Slurm node %s: exit %d, want its log read through the frontend (%q…):\n%s", b1, r.code, head, r.out)
	}
	// A log that is not there: named with the frontend and the reason.
	if err := os.Remove(filepath.Join(g.Frontend.Home, ".gridtui", "worker-"+b1+".log")); err != nil {
		t.Fatal(err)
	}
	r = gridtui(t, g, g.SitesFile, deployTimeout, "logs", "2", b1)
	if r.code == 0 || !strings.Contains(r.out, "log of "+b1+" on "+b1+" (through site ") || !strings.Contains(r.out, "No such file") {
		t.Errorf("logs of %s without its log file: exit %d, want an error naming the frontend and the reason:\n%s", b1, r.code, r.out)
	}

	// deploy --clean removes the work directory the nodes share, on the
	// frontend, and alpha's; no job is left.
	r = gridtui(t, g, g.SitesFile, deployTimeout, "deploy", "--clean")
	if r.code != 0 || !strings.Contains(r.out, "shared work directory "+frontendAlias+":.gridtui removed") {
		t.Errorf("deploy --clean: exit %d, want the frontend's work directory removed:\n%s", r.code, r.out)
	}
	for who, home := range homes {
		if _, err := os.Stat(filepath.Join(home, ".gridtui")); !os.IsNotExist(err) {
			t.Errorf("%s: ~/.gridtui still there after deploy --clean: %v", who, err)
		}
	}
	checkSlurmClean(t, g, "after deploy --clean")
	t.Run("no frontend", func(t *testing.T) { slurmWithoutFrontend(t, g, prog, job) })
}

// slurmWithoutFrontend runs gridtui as the frontend's user inside an
// allocation of beta's nodes, with an inventory whose Slurm site has no
// frontend: deploy --ship copies the binary and the program into this
// host's home, which the nodes share; the run's steps start from there and
// run the program; gridtui logs reads a node's log there.
func slurmWithoutFrontend(t *testing.T, g *Grid, prog string, job []string) {
	f := g.Frontend
	beta := g.Cluster(clusterDefs[1].Name)
	names := make([]string, len(beta))
	quoted := make([]string, len(beta))
	for i, h := range beta {
		names[i], quoted[i] = h.Name, fmt.Sprintf("%q", h.Name)
	}
	sites := filepath.Join(f.Home, "nofrontend.toml")
	doc := "[[site]]\nname = \"hpc\"\nlauncher = \"slurm\"\n  [[site.cluster]]\n  name = \"beta\"\n  hosts = [" + strings.Join(quoted, ", ") +
		"]\n  cores = 1\n  ethernet = \"eth0\"\n  fast = \"ib0\"\n"
	if err := os.WriteFile(sites, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := gridtuiBinary(t)
	for i, a := range job {
		if a == "--nodes" {
			job[i+1] = fmt.Sprint(len(beta))
		}
	}
	gt := bin + " --sites " + sites + " "
	script := gt + "deploy --ship " + prog + " && " + gt + "run " + strings.Join(job, " ") + " && " + gt + "logs 2 " + names[0] + " && echo inside-ok"
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := g.SlurmCommand(ctx, "runuser", "-u", f.User, "--", "env", "HOME="+f.Home, "XDG_DATA_HOME="+filepath.Join(f.Home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(f.Home, ".local", "state"), "SLURM_CONF="+g.slurmConf(),
		"salloc", "-J", "inside", "-w", strings.Join(names, ","), "sh", "-c", script)
	cmd.Dir = f.Home
	b, err := cmd.CombinedOutput()
	out := string(b)
	t.Logf("inside an allocation, without a frontend: %v\n%s", err, out)
	for _, want := range []string{"on this host, ~/.gridtui (no frontend: the nodes share this home when gridtui runs in their allocation): copied ",
		"; shipped poisson", "== " + names[0] + " (" + filepath.Join(f.Home, ".gridtui", "worker-"+names[0]+".log") + ")", "node=" + names[0], "inside-ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("gridtui inside an allocation without a frontend: the output lacks %q", want)
		}
	}
	if got, want := fileSum(filepath.Join(f.Home, ".gridtui", "poisson")), fileSum(prog); got != want {
		t.Errorf("the program in the shared home: sha256 %q, want %s", got, want)
	}
	checkSlurmClean(t, g, "after the run inside an allocation")
}
