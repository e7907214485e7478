package deploy

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// Where Options.Ship's files go: beside the worker binary, in the directory
// a worker runs in, so that an app = "exec" job names a program by its
// base name on every kind of host (apps/exec resolves a relative program
// from the worker's directory):
//   - an SSH host: its work directory (shipAll);
//   - a batch site's nodes: the work directory on the site's frontend, whose
//     home the nodes share and where their steps run (deployFrontend); with
//     no frontend, this host's, which the nodes share when gridtui runs in
//     their allocation (deployHere);
//   - a local host: the node's own work directory (shipLocal), where its
//     worker process starts.

// shipFiles hashes the local files to ship, refusing a name the work
// directory already uses (the worker binary, gridtui's hidden files).
func shipFiles(files []string) ([]binary, error) {
	bins := make([]binary, len(files))
	for i, f := range files {
		b, err := shipFile(f)
		if err != nil {
			return nil, err
		}
		bins[i] = b
	}
	return bins, nil
}

// failAll fails every host of s with err, before anything was done.
func failAll(s Summary, ev *emitter, err error) Summary {
	for i, r := range s.Results {
		ev.emit(r.Host, PhaseFailed, 0, "ship", err)
		s.Results[i] = Result{Host: r.Host, Phase: PhaseFailed, Detail: "ship", Err: err}
	}
	return s
}

// shipAll copies the files of d.ship into the work directory of every SSH
// host whose worker binary is ready, beside it, the way the binary goes
// (compressed through an exec channel, else SFTP; a temporary name, its
// sha256 checked on the host, then renamed), skipping a file the host
// already has. A file that cannot be shipped fails its host.
func (d *deployer) shipAll(ctx context.Context, plans []*plan, results []Result, width int) {
	var g errgroup.Group
	g.SetLimit(width)
	for _, p := range plans {
		if p == nil || results[p.i].Phase != PhaseReady {
			continue
		}
		g.Go(func() error {
			r := d.shipHost(ctx, p, results[p.i])
			if r.Phase == PhaseReady {
				d.ev.emit(p.h.Name, PhaseReady, 1, r.Detail, nil)
			}
			results[p.i] = r
			return nil
		})
	}
	g.Wait()
}

// shipFile hashes a local file to ship.
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

// shipHost ships d.ship to p's host (an SSH host, or a batch site's
// frontend) and adds them to its result.
func (d *deployer) shipHost(ctx context.Context, p *plan, r Result) Result {
	var shipped, same []string
	for _, b := range d.ship {
		final := path.Join(p.wd, filepath.Base(b.path))
		out, err := p.c.Run(ctx, remoteSum(final))
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
	r.Detail += shipDetail(shipped, same)
	return r
}

// shipDetail says what was shipped and what the host had already.
func shipDetail(shipped, same []string) string {
	var s string
	if len(shipped) > 0 {
		s += "; shipped " + strings.Join(shipped, ", ")
	}
	if len(same) > 0 {
		s += "; unchanged " + strings.Join(same, ", ")
	}
	return s
}

// shipLocal copies bins into dir on this host, skipping a file dir has
// already (same sha256), and says what it did and how many bytes it wrote.
// where names the host or site in errors.
func shipLocal(where, dir string, bins []binary) (string, int64, error) {
	var shipped, same []string
	var total int64
	for _, b := range bins {
		name := filepath.Base(b.path)
		n, err := installHere(b, filepath.Join(dir, name))
		if err != nil {
			return "", total, fmt.Errorf("deploy: %s: ship %w", where, err)
		}
		if n == 0 {
			same = append(same, name)
			continue
		}
		total += n
		shipped = append(shipped, name)
	}
	return shipDetail(shipped, same), total, nil
}

// installHere copies b to dst on this host unless dst has b's sha256
// already (then 0 bytes): a temporary name in dst's directory, b's
// permissions, its sha256 checked, then renamed over dst, so that a worker
// never runs a half-written program. Its errors read "SRC to DST: why".
func installHere(b binary, dst string) (int64, error) {
	if have, err := hashFileNow(dst); err == nil && have.sum == b.sum {
		return 0, nil
	}
	st, err := os.Stat(b.path)
	if err != nil {
		return 0, fmt.Errorf("%s to %s: %w", b.path, dst, err)
	}
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("%s to %s: %w", b.path, dst, err)
	}
	tmp, err := os.CreateTemp(dir, tmpPrefix+"*")
	if err != nil {
		return 0, fmt.Errorf("%s to %s: %w", b.path, dst, err)
	}
	n, err := copyInto(tmp, b.path)
	if err == nil {
		err = tmp.Chmod(st.Mode().Perm())
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		var got binary
		if got, err = hashFileNow(tmp.Name()); err == nil && got.sum != b.sum {
			err = fmt.Errorf("sha256 %s, want %s (did %s change while it was copied?)", got.sum, b.sum, b.path)
		}
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return 0, fmt.Errorf("%s to %s: %w", b.path, dst, err)
	}
	return n, nil
}

// deployLocal readies a local host: its worker is the console's own binary,
// so nothing is uploaded, and the files to ship go into its work directory,
// where its worker starts.
func deployLocal(h inventory.Host, bins []binary, ev *emitter) Result {
	start := time.Now()
	if len(bins) == 0 {
		ev.emit(h.Name, PhaseReady, 1, "local process, nothing to upload", nil)
		return Result{Host: h.Name, Phase: PhaseReady, Detail: "local"}
	}
	wd := localWorkdir(h)
	detail, n, err := shipLocal("host "+h.Name, wd, bins)
	if err != nil {
		ev.emit(h.Name, PhaseFailed, 0, "ship", err)
		return Result{Host: h.Name, Phase: PhaseFailed, Detail: "ship", Err: err, Elapsed: time.Since(start)}
	}
	detail = "local process, in " + wd + detail
	ev.emit(h.Name, PhaseReady, 1, detail, nil)
	return Result{Host: h.Name, Phase: PhaseReady, Detail: detail, Bytes: n, Elapsed: time.Since(start)}
}

// copyInto copies the file at src into w.
func copyInto(w io.Writer, src string) (int64, error) {
	f, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return io.Copy(w, f)
}
