package deploy

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
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
// and says where it was read ("host:path").
func ReadWorkerLog(ctx context.Context, inv *Inventory, h Host, node string, opt Options) (data []byte, where string, err error) {
	if launcherOf(inv, h) == LauncherLocal {
		p := filepath.Join(localWorkdir(h), WorkerLogFile(node))
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, p, fmt.Errorf("deploy: log of %s on %s: %w", node, h.Name, err)
		}
		if len(data) > maxLogRead {
			data = data[len(data)-maxLogRead:]
		}
		return data, p, nil
	}
	pool, done, err := poolFor(inv, opt)
	if err != nil {
		return nil, "", err
	}
	defer done()
	c, err := connectHost(ctx, pool, h)
	if err != nil {
		return nil, "", err
	}
	wd := remoteWorkdir(h)
	where = h.Name + ":" + path.Join(wd, WorkerLogFile(node))
	data, err = c.run(ctx, "cd "+shQuote(wd)+" && tail -c "+fmt.Sprint(maxLogRead)+" "+shQuote(WorkerLogFile(node)))
	if err != nil {
		return nil, where, fmt.Errorf("deploy: log of %s on %s: %w", node, h.Name, err)
	}
	return data, where, nil
}
