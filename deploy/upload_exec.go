package deploy

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"sync"

	"github.com/klauspost/compress/gzip"
	"golang.org/x/crypto/ssh"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sshclient"
)

// gzipCache holds each shipped binary compressed once per deploy, however
// many hosts receive it.
type gzipCache struct {
	mu      sync.Mutex
	entries map[string]*gzipEntry // by sha256
}

type gzipEntry struct {
	once sync.Once
	data []byte
	err  error
}

// gzipped returns bin compressed with gzip, which every Unix host can undo.
func (g *gzipCache) gzipped(bin binary) ([]byte, error) {
	g.mu.Lock()
	if g.entries == nil {
		g.entries = map[string]*gzipEntry{}
	}
	e, ok := g.entries[bin.sum]
	if !ok {
		e = &gzipEntry{}
		g.entries[bin.sum] = e
	}
	g.mu.Unlock()
	e.once.Do(func() {
		raw, err := os.ReadFile(bin.path)
		if err != nil {
			e.err = fmt.Errorf("deploy: worker binary %s: %w", bin.path, err)
			return
		}
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		_, err = zw.Write(raw)
		if cerr := zw.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			e.err = fmt.Errorf("deploy: compress %s: %w", bin.path, err)
			return
		}
		e.data = b.Bytes()
	})
	return e.data, e.err
}

// uploadExec copies bin to final through an exec channel: gzip-compressed
// into `gzip -dc` when the host has gzip (fewer bytes on a slow link), else
// plain into `cat` (a host without the SFTP subsystem). As with SFTP, the
// file goes to a temporary name, is verified and then renamed.
func (d *deployer) uploadExec(ctx context.Context, c *sshclient.Conn, h inventory.Host, bin binary, wd, final string, compress bool) (int64, error) {
	release, err := c.Acquire(ctx, 1)
	if err != nil {
		return 0, err
	}
	defer release()
	tmp := path.Join(wd, tmpName(h.Name)+randomHex(6))
	q, mine := shQuote(tmp), shQuote(path.Join(wd, tmpName(h.Name)))
	// This host's broken temporaries, and any other's older than staleAge.
	clean := "rm -f " + mine + "*; find " + shQuote(wd) + " -maxdepth 1 -name '" + tmpPrefix + "*' -mmin +" +
		fmt.Sprint(int(staleAge.Minutes())) + " -exec rm -f {} + 2>/dev/null; "
	var payload []byte
	tool := "cat"
	if compress {
		if payload, err = d.gz.gzipped(bin); err != nil {
			return 0, err
		}
		tool = "gzip -dc"
	} else if payload, err = os.ReadFile(bin.path); err != nil {
		return 0, fmt.Errorf("deploy: worker binary %s: %w", bin.path, err)
	}
	n, err := d.stream(ctx, c, h, clean+"umask 077 && "+tool+" > "+q+" && chmod 755 "+q, tool, payload)
	if err == nil {
		err = d.verify(ctx, c, h, bin, tmp)
	}
	if err == nil {
		_, err = c.Exec(ctx, "mv -f "+q+" "+shQuote(final))
	}
	if err == nil {
		recordSum(ctx, c, wd, final, bin.sum) // best effort: without it the next check rehashes
		return n, nil
	}
	c.Exec(context.WithoutCancel(ctx), "rm -f "+q) // best effort; the next upload removes it otherwise
	if ctx.Err() != nil {
		return n, fmt.Errorf("deploy: upload to %s: %w", h.Name, ctx.Err())
	}
	return n, err
}

// stream runs cmd (which feeds tool) with payload on its standard input,
// reporting progress.
func (d *deployer) stream(ctx context.Context, c *sshclient.Conn, h inventory.Host, cmd, tool string, payload []byte) (int64, error) {
	s, err := c.NewSession(ctx)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	var errb bytes.Buffer
	s.Stderr = &limitedBuffer{buf: &errb, max: 4096}
	pr := &progressReader{ctx: ctx, r: bytes.NewReader(payload), size: int64(len(payload)), report: func(f float64) {
		d.ev.emit(h.Name, PhaseUpload, f, "", nil)
	}}
	s.Stdin = pr
	done := make(chan error, 1)
	go func() { done <- s.Run(cmd) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		s.Signal(ssh.SIGKILL)
		s.Close()
		return pr.read, fmt.Errorf("deploy: upload to %s: %w", h.Name, ctx.Err())
	}
	if err != nil {
		return pr.read, fmt.Errorf("deploy: upload to %s through %s: %w: %s", h.Name, tool, err, bytes.TrimSpace(errb.Bytes()))
	}
	return pr.read, nil
}
