package deploy

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sched"
	"github.com/gridtui/gridtui/deploy/sshclient"
)

// launcherOf returns the launcher of h's site (ssh when the site is unknown).
func launcherOf(inv *inventory.Inventory, h inventory.Host) inventory.Launcher {
	if inv != nil {
		for _, s := range inv.Sites {
			if s.Name == h.Site && s.Launcher != "" {
				return s.Launcher
			}
		}
	}
	return inventory.LauncherSSH
}

// fanOut runs fn for every host, at most width at a time; one host failing
// never stops the others. Results keep the order of hosts.
func fanOut(ctx context.Context, hosts []inventory.Host, width int, fn func(context.Context, int, inventory.Host) Result) Summary {
	res := make([]Result, len(hosts))
	var g errgroup.Group
	g.SetLimit(width)
	for i, h := range hosts {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				res[i] = Result{Host: h.Name, Phase: PhaseFailed, Err: fmt.Errorf("deploy: host %s: %w", h.Name, err)}
				return nil
			}
			res[i] = fn(ctx, i, h)
			return nil
		})
	}
	g.Wait()
	return Summary{Results: res}
}

// poolFor returns opt.Pool, or a new pool and a function that closes it.
func poolFor(inv *inventory.Inventory, opt Options) (*sshclient.Pool, func(), error) {
	if opt.Pool != nil {
		return opt.Pool, func() {}, nil
	}
	p, err := sshclient.NewPool(inv, opt.SSH())
	if err != nil {
		return nil, nil, err
	}
	return p, func() { p.Close() }, nil
}

// needsSSH reports whether any host is reached over SSH (itself, or its
// site's frontend for a batch launcher).
func needsSSH(inv *inventory.Inventory, hosts []inventory.Host) bool {
	for _, h := range hosts {
		if launcherOf(inv, h) != inventory.LauncherLocal {
			return true
		}
	}
	return false
}

// Deploy uploads the worker binary to every SSH host of hosts in parallel
// (opt.Width at a time), skipping hosts that already have it; local hosts
// need none (they run the console's own), and a batch site's nodes get it
// in the work directory they share with the site's frontend (deployBatch).
// Every host is checked first; then, per site, one host
// gets the binary from the console and relays it to the others over the
// site's own network (unless opt.NoRelay), and a host the relay could not
// serve gets it from the console. opt.Ship's files go beside the binary on
// every kind of host (ship.go); a file that cannot be read fails every host
// before any is touched. The Summary lists every host; the error is the
// Summary's Err (nil when all succeeded) or a setup error.
func Deploy(ctx context.Context, inv *inventory.Inventory, hosts []inventory.Host, opt Options) (Summary, error) {
	ev := &emitter{fn: opt.Events}
	ship, err := shipFiles(opt.Ship)
	if err != nil { // a file the command line names is wrong: touch no host
		s := Summary{Results: make([]Result, len(hosts))}
		for i, h := range hosts {
			s.Results[i].Host = h.Name
		}
		s = failAll(s, ev, err)
		return s, s.Err()
	}
	var d *deployer
	if needsSSH(inv, hosts) {
		pool, done, err := poolFor(inv, opt)
		if err != nil {
			return Summary{}, err
		}
		defer done()
		d = &deployer{pool: pool, bins: newBinaries(opt), ev: ev, noCompress: opt.NoCompress, ship: ship}
	}
	plans := make([]*plan, len(hosts))
	s := fanOut(ctx, hosts, opt.width(), func(ctx context.Context, i int, h inventory.Host) Result {
		if launcherOf(inv, h) == inventory.LauncherLocal {
			return deployLocal(h, ship, ev)
		}
		if sched.SchedulerFor(string(launcherOf(inv, h))) != nil {
			return d.deployBatch(ctx, inv, h)
		}
		p, res := d.checkHost(ctx, i, h)
		plans[i] = p
		return res
	})
	if d != nil {
		d.uploadAll(ctx, plans, s.Results, opt.width(), !opt.NoRelay)
		if len(ship) > 0 {
			d.shipAll(ctx, plans, s.Results, opt.width())
		}
	}
	return s, s.Err()
}

// pidFile is where a worker of node records its pid in the work directory,
// so that a later `gridtui deploy --stop` finds it.
func pidFile(node string) string {
	return "worker-" + strings.NewReplacer("/", "_", " ", "_").Replace(node) + ".pid"
}

// Stop stops the workers recorded in every host's work directory (workers
// of this process are better stopped with Worker.Stop).
func Stop(ctx context.Context, inv *inventory.Inventory, hosts []inventory.Host, opt Options) (Summary, error) {
	return stopOrClean(ctx, inv, hosts, opt, false)
}

// Clean stops the workers like Stop and removes every host's work directory.
func Clean(ctx context.Context, inv *inventory.Inventory, hosts []inventory.Host, opt Options) (Summary, error) {
	return stopOrClean(ctx, inv, hosts, opt, true)
}

func stopOrClean(ctx context.Context, inv *inventory.Inventory, hosts []inventory.Host, opt Options, clean bool) (Summary, error) {
	ev := &emitter{fn: opt.Events}
	var pool *sshclient.Pool
	if needsSSH(inv, hosts) {
		p, done, err := poolFor(inv, opt)
		if err != nil {
			return Summary{}, err
		}
		defer done()
		pool = p
	}
	batch := &batchCleaner{inv: inv, pool: pool}
	s := fanOut(ctx, hosts, opt.width(), func(ctx context.Context, _ int, h inventory.Host) Result {
		start := time.Now()
		var detail string
		var err error
		switch {
		case launcherOf(inv, h) == inventory.LauncherLocal:
			detail, err = stopLocal(h, clean, opt.stopGrace())
		case sched.SchedulerFor(string(launcherOf(inv, h))) != nil && clean:
			detail, err = batch.clean(ctx, h)
		case sched.SchedulerFor(string(launcherOf(inv, h))) != nil:
			// Compute nodes refuse SSH outside an allocation, and workers
			// end with theirs; the binary is on the frontend (deployBatch).
			detail = "batch site: workers end with their allocation"
		default:
			detail, err = stopRemote(ctx, pool, h, clean, opt.stopGrace(), ev)
		}
		if err != nil {
			ev.emit(h.Name, PhaseFailed, 0, "stop", err)
			return Result{Host: h.Name, Phase: PhaseFailed, Detail: "stop", Err: err, Elapsed: time.Since(start)}
		}
		ev.emit(h.Name, PhaseStopped, 1, detail, nil)
		return Result{Host: h.Name, Phase: PhaseStopped, Detail: detail, Elapsed: time.Since(start)}
	})
	return s, s.Err()
}

func stopRemote(ctx context.Context, pool *sshclient.Pool, h inventory.Host, clean bool, grace time.Duration, ev *emitter) (string, error) {
	ev.emit(h.Name, PhaseConnect, 0, "", nil)
	c, err := sshclient.Connect(ctx, pool, h)
	if err != nil {
		return "", err
	}
	wd := remoteWorkdir(h)
	if err := checkWorkdir(h, wd); err != nil {
		return "", err
	}
	out, err := c.Run(ctx, stopScript(wd, clean, grace))
	if err != nil {
		return "", err
	}
	n, k, a, err := stopCounts(string(out))
	if err != nil {
		return "", fmt.Errorf("deploy: %s: %w", h.Name, err)
	}
	return stopOutcome(h.Name, n, k, a, grace, clean)
}

// localWorkdir is a local host's work directory (pid files, sockets,
// logs): with the default workdir, gridtui/local/<node> under the XDG state
// directory ($XDG_STATE_HOME, else ~/.local/state), beside the console's
// log; with a workdir of the inventory's own, that directory (relative to
// home, as on remote hosts) plus local/<node>. Local nodes never share one
// and Clean removes only theirs.
func localWorkdir(h inventory.Host) string {
	home, err := os.UserHomeDir()
	if err != nil {
		home = os.TempDir()
	}
	wd := h.Workdir
	if wd == "" || wd == inventory.DefaultWorkdir {
		state := os.Getenv("XDG_STATE_HOME")
		if !filepath.IsAbs(state) { // the XDG spec: a relative path is invalid
			state = filepath.Join(home, ".local", "state")
		}
		return filepath.Join(state, "gridtui", "local", h.Name)
	}
	wd = sshclient.ExpandHome(wd)
	if wd == "~" || !filepath.IsAbs(wd) {
		if wd == "~" {
			wd = ""
		}
		wd = filepath.Join(home, wd)
	}
	return filepath.Join(wd, "local", h.Name)
}

// isGridtui reports whether pid runs our binary (its exe path or argv[0]).
func isGridtui(pid int) bool {
	exe, err := os.Executable()
	if err != nil {
		return false
	}
	cmd, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	argv0, _, _ := strings.Cut(string(cmd), "\x00")
	return argv0 == exe || path.Base(argv0) == path.Base(exe)
}
