package deploy

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A batch scheduler (Slurm; OAR and PBS would be two more) owns a site's
// compute nodes: SSH to them is refused outside an allocation. gridtui asks
// the site's frontend for an allocation of the job's nodes with a command
// that holds it until its standard input closes — so, like a worker, the
// allocation cannot outlive the console — starts one worker per node as a
// step of the allocation, and releases the allocation when the last worker
// is gone. A scheduler is a handful of command lines and parsers.
type scheduler interface {
	// Name is the scheduler's name in messages ("Slurm").
	Name() string
	// allocCommand asks for exactly nodes, with cores cores each (0: the
	// scheduler's default), and opt; once granted it prints allocLine, the
	// job id and the node list on stdout, then holds the allocation until
	// its stdin closes.
	allocCommand(nodes string, cores int, opt BatchOptions) string
	// jobID finds the job id in a line the allocation command writes on
	// stderr while it waits ("" if the line names none).
	jobID(line string) string
	// statusCommand prints what statusOf parses about a waiting job.
	statusCommand(id string) string
	statusOf(id string, out []byte) (Pending, error)
	// stepCommand runs cmd on node inside allocation id, with stdin and
	// stdout forwarded (the worker's boot and hello).
	stepCommand(id, node, cmd string) string
	// cancelCommand releases allocation id.
	cancelCommand(id string) string
	// inside returns the allocation the environment says gridtui runs in.
	inside(getenv func(string) string) (id, nodes string, ok bool)
	// runningCommand prints the ids of the user's allocations that gridtui
	// asked for and that still run; with no such job, or no scheduler
	// command here, it prints nothing and does not fail. When it prints
	// ids, it exits: what follows it in a command line runs only when
	// there is none.
	runningCommand() string
}

// allocLine starts the line an allocation command prints once granted:
// "gridtui-allocation ID NODELIST".
const allocLine = "gridtui-allocation"

// Pending is what the scheduler says about an allocation that waits.
type Pending struct {
	Job    string
	State  string // PENDING, CONFIGURING, …
	Reason string // the scheduler's reason: Resources, Priority, …
	// Position is the job's place among the partition's waiting jobs
	// (1: next), 0 when unknown.
	Position int
}

// String is what the console and the terminal show.
func (p Pending) String() string {
	s := fmt.Sprintf("job %s %s", p.Job, strings.ToLower(p.State))
	if p.Reason != "" && p.Reason != "None" {
		s += " (" + p.Reason + ")"
	}
	if p.Position > 0 {
		s += fmt.Sprintf(", position %d in the queue", p.Position)
	}
	return s
}

// BatchOptions are a batch site's allocation options ([site.batch] in
// sites.toml).
type BatchOptions struct {
	Partition string
	Account   string
	TimeLimit time.Duration // 0: the partition's default
	Options   []string      // extra options, passed as they are
}

// schedulerFor returns the scheduler of a launcher, or nil.
func schedulerFor(l Launcher) scheduler {
	if l == LauncherSlurm {
		return slurm{}
	}
	return nil
}

// slurm is the Slurm scheduler: salloc, squeue, srun, scancel.
type slurm struct{}

func (slurm) Name() string { return "Slurm" }

func (slurm) allocCommand(nodes string, cores int, opt BatchOptions) string {
	args := []string{"salloc", "--job-name=gridtui", "--nodelist=" + shQuote(nodes), "--nodes=" + strconv.Itoa(nodeCount(nodes)),
		"--ntasks-per-node=1"}
	if cores > 0 {
		args = append(args, "--cpus-per-task="+strconv.Itoa(cores))
	}
	if opt.Partition != "" {
		args = append(args, "--partition="+shQuote(opt.Partition))
	}
	if opt.Account != "" {
		args = append(args, "--account="+shQuote(opt.Account))
	}
	if opt.TimeLimit > 0 {
		args = append(args, "--time="+strconv.Itoa(int((opt.TimeLimit+time.Minute-1)/time.Minute)))
	}
	for _, o := range opt.Options {
		args = append(args, shQuote(o))
	}
	// The command salloc runs on the frontend once granted: say so, then
	// hold the allocation until the console closes stdin.
	hold := `echo ` + allocLine + ` "$SLURM_JOB_ID" "$SLURM_JOB_NODELIST"; exec cat >/dev/null`
	return strings.Join(args, " ") + " sh -c " + shQuote(hold)
}

// nodeCount counts the names of a comma-separated list (node sets expanded).
func nodeCount(nodes string) int {
	n, err := ExpandNodeSet(nodes)
	if err != nil {
		return 1
	}
	return len(n)
}

var slurmJobRE = regexp.MustCompile(`(?:job allocation|job) (\d+)`)

func (slurm) jobID(line string) string {
	if m := slurmJobRE.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

func (slurm) statusCommand(id string) string {
	return "squeue -h -j " + id + " -o '%i|%T|%r|%P'; echo --; squeue -h -t PD -o '%i|%P' --sort=-p,i"
}

// statusOf parses "ID|STATE|REASON|PARTITION", "--", then the waiting jobs
// in priority order, into the job's state and its place among the waiting
// jobs of its partition.
func (slurm) statusOf(id string, out []byte) (Pending, error) {
	mine, queue, _ := strings.Cut(string(out), "--")
	f := strings.Split(strings.TrimSpace(mine), "|")
	if len(f) < 4 || f[0] != id {
		return Pending{}, fmt.Errorf("squeue says nothing about job %s", id)
	}
	p := Pending{Job: id, State: f[1], Reason: f[2]}
	pos := 0
	for _, l := range strings.Split(strings.TrimSpace(queue), "\n") {
		qid, part, _ := strings.Cut(strings.TrimSpace(l), "|")
		if part != f[3] {
			continue
		}
		pos++
		if qid == id {
			p.Position = pos
		}
	}
	return p, nil
}

func (slurm) stepCommand(id, node, cmd string) string {
	// --overlap: workers share the allocation's resources with each other;
	// --kill-on-bad-exit: a step whose worker dies ends at once.
	return "srun --jobid=" + id + " --overlap --nodes=1 --ntasks=1 --nodelist=" + shQuote(node) +
		" --kill-on-bad-exit=1 sh -c " + shQuote(cmd)
}

func (slurm) cancelCommand(id string) string { return "scancel " + id }

func (slurm) runningCommand() string {
	return `j=$(squeue -h -u "$(id -un)" -n gridtui -o %i 2>/dev/null); if [ -n "$j" ]; then echo $j; exit 0; fi`
}

func (slurm) inside(getenv func(string) string) (string, string, bool) {
	id, nodes := getenv("SLURM_JOB_ID"), getenv("SLURM_JOB_NODELIST")
	return id, nodes, id != "" && nodes != ""
}

// insideAllocation returns the allocation gridtui runs in, by s's
// environment variables.
func insideAllocation(s scheduler) (string, string, bool) { return s.inside(os.Getenv) }

// deployBatch deploys a batch site's host h, once per site, where the
// site's nodes run their workers: compute nodes refuse SSH outside an
// allocation and, as on nearly every batch cluster, share the home of the
// site's frontend, where their steps find the binary and the shipped files
// (deployFrontend). A site without a frontend is run from inside an
// allocation of its nodes, whose steps start here, in this host's home
// (deployHere). The bytes are counted on the first host of the site only.
func (d *deployer) deployBatch(ctx context.Context, inv *Inventory, h Host) Result {
	site := inv.site(h.Site)
	d.mu.Lock()
	if d.frontends == nil {
		d.frontends = map[string]*frontendDeploy{}
	}
	f, ok := d.frontends[site.Name]
	if !ok {
		f = &frontendDeploy{}
		d.frontends[site.Name] = f
	}
	d.mu.Unlock()
	f.once.Do(func() {
		if site.Frontend == "" {
			f.res = d.deployHere(site, h)
			f.where = "on this host, " + shownWorkdir(remoteWorkdir(h)) + " (no frontend: the nodes share this home when gridtui runs in their allocation)"
			return
		}
		f.res = d.deployFrontend(ctx, site, h)
		f.where = "on " + site.Frontend + " (the nodes share its home)"
	})
	r := f.res
	r.Host = h.Name
	d.mu.Lock()
	if f.counted {
		r.Bytes = 0
	}
	f.counted = true
	d.mu.Unlock()
	if r.Phase == PhaseReady {
		r.Detail = f.where + ": " + r.Detail
		d.ev.emit(h.Name, PhaseReady, 1, r.Detail, nil)
	} else {
		d.ev.emit(h.Name, PhaseFailed, 0, "frontend", r.Err)
	}
	return r
}

// frontendHost is the SSH host of site's frontend, as h's site reaches it:
// the inventory's identity files apply to it, as to any jump host, and the
// work directory is h's.
func frontendHost(site Site, h Host) (Host, error) {
	q, err := parseHop(site.Frontend)
	if err != nil {
		return Host{}, fmt.Errorf("deploy: site %s: frontend %q: %w", site.Name, site.Frontend, err)
	}
	return Host{Name: q.Name, User: q.User, Port: q.Port, Site: site.Name, Workdir: h.Workdir, IdentityFiles: h.IdentityFiles}, nil
}

// deployFrontend uploads the binary and ships d.ship to the work directory
// of site's frontend.
func (d *deployer) deployFrontend(ctx context.Context, site Site, h Host) Result {
	fh, err := frontendHost(site, h)
	if err != nil {
		return Result{Phase: PhaseFailed, Err: err}
	}
	p, res := d.checkHost(ctx, 0, fh)
	if p != nil && !p.unchanged {
		res = d.uploadHost(ctx, p)
	}
	if res.Phase == PhaseReady && len(d.ship) > 0 {
		res = d.shipHost(ctx, p, res)
	}
	if res.Err != nil { // every node of the site reports it: say it is their frontend
		res.Err = inContext("site "+site.Name+": frontend "+site.Frontend, res.Err)
	}
	return res
}

// deployHere copies the running binary (or Options.Binary) and d.ship into
// the work directory in this host's home: a batch site without a frontend
// starts its workers from here, as steps of the allocation gridtui runs in,
// in that directory of the home the nodes share.
func (d *deployer) deployHere(site Site, h Host) Result {
	start := time.Now()
	where := "site " + site.Name + " (no frontend: this host's home)"
	fail := func(err error) Result {
		return Result{Phase: PhaseFailed, Detail: "copy", Err: err, Elapsed: time.Since(start)}
	}
	wd := remoteWorkdir(h)
	if err := checkWorkdir(h, wd); err != nil {
		return fail(err)
	}
	dir := hereWorkdir(wd)
	bin, err := d.bins.forTarget(runtime.GOOS, runtime.GOARCH)
	if err != nil {
		return fail(fmt.Errorf("deploy: %s: %w", where, err))
	}
	n, err := installHere(bin, filepath.Join(dir, binaryName))
	if err != nil {
		return fail(fmt.Errorf("deploy: %s: worker binary %w", where, err))
	}
	detail := "unchanged"
	if n > 0 {
		detail = "copied " + humanBytes(n)
	}
	more, m, err := shipLocal(where, dir, d.ship)
	if err != nil {
		return fail(err)
	}
	return Result{Phase: PhaseReady, Detail: detail + more, Bytes: n + m, Elapsed: time.Since(start)}
}

// hereWorkdir is work directory wd (remoteWorkdir's) on this host: relative
// to the home, as in an SSH session, unless absolute.
func hereWorkdir(wd string) string {
	if filepath.IsAbs(wd) {
		return wd
	}
	return filepath.Join(homeDir(), wd)
}

// shownWorkdir is how messages name work directory wd: ~/wd when relative
// to the home.
func shownWorkdir(wd string) string {
	if filepath.IsAbs(wd) {
		return wd
	}
	return "~/" + wd
}

// frontendDeploy is the outcome of deploying a batch site, once.
type frontendDeploy struct {
	once    sync.Once
	res     Result
	where   string // where the binary went, for every host's detail
	counted bool   // a host of the site has counted the bytes
}
