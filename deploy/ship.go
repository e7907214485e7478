package deploy

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/sync/errgroup"
)

// shipAll copies the files of Options.Ship into the work directory of
// every host whose worker binary is ready, beside it, the way the binary
// goes (compressed through an exec channel, else SFTP; a temporary name,
// its sha256 checked on the host, then renamed), skipping a file the host
// already has. A file that cannot be shipped fails its host.
func (d *deployer) shipAll(ctx context.Context, plans []*plan, results []Result, files []string, width int) {
	bins := make([]binary, len(files))
	for i, f := range files {
		b, err := shipFile(f)
		if err != nil {
			for _, p := range plans {
				if p != nil && results[p.i].Phase == PhaseReady {
					results[p.i] = d.fail(p.h, p.start, PhaseUpload, err)
				}
			}
			return
		}
		bins[i] = b
	}
	var g errgroup.Group
	g.SetLimit(width)
	for _, p := range plans {
		if p == nil || results[p.i].Phase != PhaseReady {
			continue
		}
		g.Go(func() error {
			results[p.i] = d.shipHost(ctx, p, results[p.i], bins)
			return nil
		})
	}
	g.Wait()
}

// shipFile hashes a local file to ship, refusing a name the work directory
// already uses (the worker binary, gridtui's hidden files).
func shipFile(f string) (binary, error) {
	base := filepath.Base(f)
	if base == binaryName || strings.HasPrefix(base, ".") {
		return binary{}, fmt.Errorf("deploy: ship %s: the work directory keeps %s for gridtui itself; rename the file", f, base)
	}
	st, err := os.Stat(f)
	if err != nil {
		return binary{}, fmt.Errorf("deploy: ship: %w", err)
	}
	if !st.Mode().IsRegular() {
		return binary{}, fmt.Errorf("deploy: ship %s: not a regular file", f)
	}
	return hashFile(f)
}

// shipHost ships the files to p's host and adds them to its result.
func (d *deployer) shipHost(ctx context.Context, p *plan, r Result, bins []binary) Result {
	var shipped, same []string
	for _, b := range bins {
		final := path.Join(p.wd, filepath.Base(b.path))
		out, err := p.c.run(ctx, remoteSum(final))
		if err != nil {
			return d.fail(p.h, p.start, PhaseUpload, fmt.Errorf("deploy: ship %s to %s: %w", b.path, p.h.Name, err))
		}
		if parseSum(string(out)) == b.sum {
			same = append(same, filepath.Base(b.path))
			continue
		}
		n, err := d.upload(ctx, p.c, p.h, b, p.wd, final)
		if err != nil {
			return d.fail(p.h, p.start, PhaseUpload, fmt.Errorf("deploy: ship %s to %s: %w", b.path, p.h.Name, err))
		}
		r.Bytes += n
		shipped = append(shipped, filepath.Base(b.path))
	}
	if len(shipped) > 0 {
		r.Detail += "; shipped " + strings.Join(shipped, ", ")
	}
	if len(same) > 0 {
		r.Detail += "; unchanged " + strings.Join(same, ", ")
	}
	d.ev.emit(p.h.Name, PhaseReady, 1, r.Detail, nil)
	return r
}
