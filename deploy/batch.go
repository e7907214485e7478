package deploy

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sshclient"
)

// deployBatch deploys a batch site's host h, once per site, where the
// site's nodes run their workers: compute nodes refuse SSH outside an
// allocation and, as on nearly every batch cluster, share the home of the
// site's frontend, where their steps find the binary and the shipped files
// (deployFrontend). A site without a frontend is run from inside an
// allocation of its nodes, whose steps start here, in this host's home
// (deployHere). The bytes are counted on the first host of the site only.
func (d *deployer) deployBatch(ctx context.Context, inv *inventory.Inventory, h inventory.Host) Result {
	site := siteNamed(inv, h.Site)
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
func frontendHost(site inventory.Site, h inventory.Host) (inventory.Host, error) {
	q, err := sshclient.ParseHop(site.Frontend)
	if err != nil {
		return inventory.Host{}, fmt.Errorf("deploy: site %s: frontend %q: %w", site.Name, site.Frontend, err)
	}
	return inventory.Host{Name: q.Name, User: q.User, Port: q.Port, Site: site.Name, Workdir: h.Workdir, IdentityFiles: h.IdentityFiles}, nil
}

// deployFrontend uploads the binary and ships d.ship to the work directory
// of site's frontend.
func (d *deployer) deployFrontend(ctx context.Context, site inventory.Site, h inventory.Host) Result {
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
func (d *deployer) deployHere(site inventory.Site, h inventory.Host) Result {
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
