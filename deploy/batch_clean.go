package deploy

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sched"
	"github.com/gridtui/gridtui/deploy/sshclient"
)

// A batch site's nodes run their workers from the work directory they share
// with the site's frontend (or with this host, when the site has none):
// deploy --clean removes that directory, once per site, unless an
// allocation gridtui asked for still runs there (its steps run from it, and
// end with it: gridtui does not stop them).

// batchCleaner cleans each batch site once for a Clean call.
type batchCleaner struct {
	inv  *inventory.Inventory
	pool *sshclient.Pool

	mu    sync.Mutex
	sites map[string]*batchClean
}

type batchClean struct {
	once   sync.Once
	detail string
	err    error
}

// clean removes the shared work directory of h's site, once.
func (bc *batchCleaner) clean(ctx context.Context, h inventory.Host) (string, error) {
	site := siteNamed(bc.inv, h.Site)
	bc.mu.Lock()
	if bc.sites == nil {
		bc.sites = map[string]*batchClean{}
	}
	c, ok := bc.sites[site.Name]
	if !ok {
		c = &batchClean{}
		bc.sites[site.Name] = c
	}
	bc.mu.Unlock()
	c.once.Do(func() { c.detail, c.err = bc.cleanSite(ctx, site, h) })
	return c.detail, c.err
}

// cleanSite asks the scheduler for the user's gridtui allocations where the
// site's commands run and, when there is none, removes the work directory.
func (bc *batchCleaner) cleanSite(ctx context.Context, site inventory.Site, h inventory.Host) (string, error) {
	wd := remoteWorkdir(h)
	if err := checkWorkdir(h, wd); err != nil {
		return "", err
	}
	var r runner = localRunner{}
	where := "this host's " + shownWorkdir(wd)
	if site.Frontend != "" {
		fh, err := frontendHost(site, h)
		if err != nil {
			return "", err
		}
		c, err := sshclient.Connect(ctx, bc.pool, fh)
		if err != nil {
			return "", inContext("site "+site.Name+": frontend", err)
		}
		r, where = sshRunner{c}, site.Frontend+":"+wd
	}
	running := "true"
	scheduler := sched.SchedulerFor(string(site.Launcher))
	if a, ok := scheduler.(sched.Allocator); ok {
		running = a.RunningCommand()
	}
	out, err := r.output(ctx, running+`; echo --; cd && rm -rf `+shQuote(wd)+` && echo removed`)
	if err != nil {
		return "", inContext("site "+site.Name+": clean "+where, err)
	}
	jobs, rest, _ := strings.Cut(string(out), "--")
	if ids := strings.Fields(jobs); len(ids) > 0 {
		return "", fmt.Errorf("deploy: site %s: not removing %s: %s job %s of gridtui still runs from it (its workers end with it)",
			site.Name, where, scheduler.Name(), strings.Join(ids, ", "))
	}
	if strings.TrimSpace(rest) != "removed" {
		return "", fmt.Errorf("deploy: site %s: clean %s: unexpected output %q", site.Name, where, out)
	}
	return "batch site: shared work directory " + where + " removed", nil
}
