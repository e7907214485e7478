package deploy

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sched"
	"github.com/gridtui/gridtui/deploy/sshclient"
)

// maxLogRead bounds what ReadWorkerLog brings back: the end of the file.
const maxLogRead = 4 << 20

// WorkerLogFile is the log file of node's worker in its work directory on
// its host (Boot.LogFile as BootFor sets it): the log stays where the
// worker ran, for `gridtui logs`.
func WorkerLogFile(node string) string {
	return "worker-" + strings.NewReplacer("/", "_", " ", "_").Replace(node) + ".log"
}

// ReadWorkerLog reads the end (at most 4 MiB) of node's worker log on h
// and says where it was read ("host:path"): from the local disk for a
// local host, over SSH for an SSH host, and for a batch site's node —
// which refuses SSH outside an allocation — from the work directory the
// node shares with the site's frontend, over SSH to the frontend, or in
// this host's home when the site has none (gridtui ran in the allocation).
func ReadWorkerLog(ctx context.Context, inv *inventory.Inventory, h inventory.Host, node string, opt Options) (data []byte, where string, err error) {
	switch l := launcherOf(inv, h); {
	case l == inventory.LauncherLocal:
		return readLogHere(filepath.Join(localWorkdir(h), WorkerLogFile(node)), node, h.Name, "")
	case sched.SchedulerFor(string(l)) != nil:
		return readBatchLog(ctx, inv, h, node, opt)
	}
	pool, done, err := poolFor(inv, opt)
	if err != nil {
		return nil, "", err
	}
	defer done()
	c, err := sshclient.Connect(ctx, pool, h)
	if err != nil {
		return nil, "", inContext(fmt.Sprintf("log of %s on %s", node, h.Name), err)
	}
	return tailLog(ctx, c, h, node, h.Name, "")
}

// readBatchLog reads the log of node, on batch site h's host, where the
// node's steps wrote it: in the work directory of the home it shares with
// the site's frontend.
func readBatchLog(ctx context.Context, inv *inventory.Inventory, h inventory.Host, node string, opt Options) ([]byte, string, error) {
	site := siteNamed(inv, h.Site)
	if site.Frontend == "" {
		why := fmt.Sprintf(" (site %s has no frontend: read in this host's home, which the nodes share when gridtui runs in their allocation)", site.Name)
		return readLogHere(filepath.Join(hereWorkdir(remoteWorkdir(h)), WorkerLogFile(node)), node, h.Name, why)
	}
	why := fmt.Sprintf(" (through site %s's frontend %s, whose home the nodes share)", site.Name, site.Frontend)
	fh, err := frontendHost(site, h)
	if err != nil {
		return nil, "", inContext(fmt.Sprintf("log of %s on %s%s", node, h.Name, why), err)
	}
	pool, done, err := poolFor(inv, opt)
	if err != nil {
		return nil, "", err
	}
	defer done()
	c, err := sshclient.Connect(ctx, pool, fh)
	if err != nil {
		return nil, "", inContext(fmt.Sprintf("log of %s on %s%s", node, h.Name, why), err)
	}
	return tailLog(ctx, c, h, node, fh.Name, why)
}

// tailLog reads the end of node's log in h's work directory over c, a
// connection to host (h's, or its frontend's).
func tailLog(ctx context.Context, c *sshclient.Conn, h inventory.Host, node, host, why string) ([]byte, string, error) {
	wd := remoteWorkdir(h)
	where := host + ":" + path.Join(wd, WorkerLogFile(node))
	data, err := c.Run(ctx, "cd "+shQuote(wd)+" && tail -c "+fmt.Sprint(maxLogRead)+" "+shQuote(WorkerLogFile(node)))
	if err != nil {
		return nil, where, inContext(fmt.Sprintf("log of %s on %s%s", node, h.Name, why), err)
	}
	return data, where, nil
}

// readLogHere reads the end of the log at p on this host.
func readLogHere(p, node, host, why string) ([]byte, string, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, p, inContext(fmt.Sprintf("log of %s on %s%s", node, host, why), err)
	}
	if len(data) > maxLogRead {
		data = data[len(data)-maxLogRead:]
	}
	return data, p, nil
}

// inContext says what was being done when err happened: "deploy: what:
// err", the package's prefix once even when err carries it already;
// errors.Is and errors.As still see err.
func inContext(what string, err error) error {
	return &contextError{msg: "deploy: " + what + ": " + strings.TrimPrefix(err.Error(), "deploy: "), err: err}
}

// contextError is an error with its own text that unwraps to err.
type contextError struct {
	msg string
	err error
}

func (e *contextError) Error() string { return e.msg }
func (e *contextError) Unwrap() error { return e.err }
