package deploy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sshclient"
)

// tmpPrefix names upload temporaries in the work directory; a broken upload
// leaves one behind, and the next upload removes it.
const tmpPrefix = ".gridtui.tmp-"

// deployer uploads the worker binary to one host at a time.
type deployer struct {
	pool       *sshclient.Pool
	bins       *binaries
	ev         *emitter
	gz         gzipCache
	noCompress bool
	ship       []binary // Options.Ship's files, hashed

	mu        sync.Mutex
	gzip      map[string]bool // hosts that have gzip, learnt by check
	frontends map[string]*frontendDeploy
}

func (d *deployer) setGzip(host string, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.gzip == nil {
		d.gzip = map[string]bool{}
	}
	d.gzip[host] = ok
}

func (d *deployer) hasGzip(host string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.gzip[host]
}

// plan is one host's state between its check and its upload.
type plan struct {
	i         int // the host's index in the fan-out
	h         inventory.Host
	c         *sshclient.Conn
	bin       binary
	wd, final string
	start     time.Time
	unchanged bool // the host already has bin
}

// checkHost connects to h and checks what it has: the plan of its upload,
// or, when it failed, nil and the failed Result.
func (d *deployer) checkHost(ctx context.Context, i int, h inventory.Host) (*plan, Result) {
	start := time.Now()
	d.ev.emit(h.Name, PhaseConnect, 0, "", nil)
	c, err := sshclient.Connect(ctx, d.pool, h)
	if err != nil {
		return nil, d.fail(h, start, PhaseConnect, err)
	}
	d.ev.emit(h.Name, PhaseCheck, 0, "", nil)
	wd := remoteWorkdir(h)
	final := path.Join(wd, binaryName)
	bin, remoteSum, err := d.check(ctx, c, h, wd, final)
	if err != nil {
		return nil, d.fail(h, start, PhaseCheck, err)
	}
	p := &plan{i: i, h: h, c: c, bin: bin, wd: wd, final: final, start: start, unchanged: remoteSum == bin.sum}
	if p.unchanged {
		return p, d.ready(p, 0, "unchanged")
	}
	return p, Result{Host: h.Name, Phase: PhaseCheck}
}

// uploadHost uploads p's binary from the console.
func (d *deployer) uploadHost(ctx context.Context, p *plan) Result {
	n, err := d.upload(ctx, p.c, p.h, p.bin, p.wd, p.final)
	if err != nil {
		return d.fail(p.h, p.start, PhaseUpload, err)
	}
	return d.ready(p, n, "uploaded "+humanBytes(n))
}

// fail ends h's deployment with err in phase ph.
func (d *deployer) fail(h inventory.Host, start time.Time, ph Phase, err error) Result {
	d.ev.emit(h.Name, PhaseFailed, 0, string(ph), err)
	return Result{Host: h.Name, Phase: PhaseFailed, Detail: string(ph), Err: err, Elapsed: time.Since(start)}
}

// ready ends p's deployment: n bytes uploaded (0: it had the binary).
func (d *deployer) ready(p *plan, n int64, detail string) Result {
	d.ev.emit(p.h.Name, PhaseReady, 1, detail, nil)
	return Result{Host: p.h.Name, Phase: PhaseReady, Detail: detail, Bytes: n, Elapsed: time.Since(p.start)}
}

// check learns the remote OS/arch and the sha256 of the installed binary,
// and picks the local binary to ship. The digest comes from the record
// written after the last verified upload when the file's inode, size and
// ctime (nanoseconds; any write, chmod or rename changes it) still match it,
// else from sha256sum — so an unchanged redeploy does not rehash the binary.
func (d *deployer) check(ctx context.Context, c *sshclient.Conn, h inventory.Host, wd, final string) (binary, string, error) {
	if err := checkWorkdir(h, wd); err != nil {
		return binary{}, "", err
	}
	out, err := c.Run(ctx, "uname -sm && { command -v gzip >/dev/null 2>&1 && echo gzip || echo -; } && mkdir -p "+shQuote(wd)+" && "+statKey(final)+
		" && { cat "+shQuote(path.Join(wd, sumRecord))+" 2>/dev/null || echo -; }")
	if err != nil {
		return binary{}, "", err
	}
	lines := strings.SplitN(string(out), "\n", 5)
	if len(lines) < 4 {
		return binary{}, "", fmt.Errorf("deploy: host %s: unexpected check output %.80q", h.Name, out)
	}
	d.setGzip(h.Name, strings.TrimSpace(lines[1]) == "gzip")
	lines = append(lines[:1], lines[2:]...)
	goos, goarch, err := parseUname(lines[0])
	if err != nil {
		return binary{}, "", fmt.Errorf("deploy: host %s: %w", h.Name, err)
	}
	bin, err := d.bins.forTarget(goos, goarch)
	if err != nil {
		// The error names the platform and the file; the host's Result
		// names the host ("deploy: host h: deploy: no matching…" doubled).
		return binary{}, "", err
	}
	key, record := strings.TrimSpace(lines[1]), strings.TrimSpace(lines[2])
	if sum, recKey, ok := strings.Cut(record, " "); ok && key != "-" && recKey == key {
		return bin, parseSum(sum), nil
	}
	if key == "" {
		return bin, "", nil // no binary there yet
	}
	out, err = c.Run(ctx, remoteSum(final))
	if err != nil {
		return binary{}, "", err
	}
	return bin, parseSum(string(out)), nil
}

// sumRecord is the file, beside the binary, that records its verified sha256
// with the stat key it had then.
const sumRecord = ".gridtui.sha256"

// statKey prints "inode size ctime" of p, nothing if p does not exist, or
// "-" if stat -c is not available (BSD), which forces a rehash.
func statKey(p string) string {
	q := shQuote(p)
	return "{ if [ -e " + q + " ]; then stat -c '%i %s %z' " + q + " 2>/dev/null || echo -; else echo; fi; }"
}

// recordSum writes the sum record of the just-renamed binary (only the
// worker binary has one: a shipped file is rehashed by the next check).
func recordSum(ctx context.Context, c *sshclient.Conn, wd, final, sum string) error {
	if path.Base(final) != binaryName {
		return nil
	}
	rec := shQuote(path.Join(wd, sumRecord))
	_, err := c.Exec(ctx, "printf '%s %s\\n' "+sum+" \"$("+statKey(final)+")\" > "+rec+".tmp && mv -f "+rec+".tmp "+rec)
	return err
}

// upload copies bin to a temporary file with concurrent SFTP writes, checks
// its sha256 on the host, and renames it over final, so final is never a
// half-written binary.
//
// When the host has gzip (and Options.NoCompress is not set) the binary goes
// compressed through an exec channel instead (uploadExec); a host without
// the SFTP subsystem gets it plain through one.
func (d *deployer) upload(ctx context.Context, c *sshclient.Conn, h inventory.Host, bin binary, wd, final string) (int64, error) {
	if !d.noCompress && d.hasGzip(h.Name) {
		return d.uploadExec(ctx, c, h, bin, wd, final, true)
	}
	release, err := c.Acquire(ctx, 2) // the SFTP session, and one for verify and record
	if err != nil {
		return 0, err
	}
	sc, closeSFTP, err := openSFTP(ctx, c)
	if err != nil {
		release()
		if ctx.Err() == nil {
			return d.uploadExec(ctx, c, h, bin, wd, final, false)
		}
		return 0, err
	}
	defer release()
	defer closeSFTP()
	stop := context.AfterFunc(ctx, func() { sc.Close() })
	defer stop()
	removeStale(sc, wd, h.Name)
	tmp := path.Join(wd, tmpName(h.Name)+randomHex(6))
	n, err := d.copyTo(ctx, sc, h, bin, tmp)
	if err == nil {
		err = d.verify(ctx, c, h, bin, tmp)
	}
	if err == nil {
		if err = sc.PosixRename(tmp, final); err != nil {
			err = fmt.Errorf("deploy: rename %s to %s on %s: %w", tmp, final, h.Name, err)
		}
	}
	if err == nil {
		recordSum(ctx, c, wd, final, bin.sum) // best effort: without it the next check rehashes
	}
	if err != nil {
		sc.Remove(tmp) // best effort; the next upload removes it otherwise
		if ctx.Err() != nil {
			return n, fmt.Errorf("deploy: upload to %s: %w", h.Name, ctx.Err())
		}
		return n, err
	}
	return n, nil
}

// openSFTP starts the sftp subsystem on a session of c. Its close function
// waits until the server has closed the session too, so the slot is free on
// the server's side (MaxSessions) before it is released on ours.
func openSFTP(ctx context.Context, c *sshclient.Conn) (*sftp.Client, func(), error) {
	s, err := c.NewSession(ctx)
	if err != nil {
		return nil, nil, err
	}
	w, err := s.StdinPipe()
	if err == nil {
		var r io.Reader
		if r, err = s.StdoutPipe(); err == nil {
			if err = s.RequestSubsystem("sftp"); err == nil {
				var sc *sftp.Client
				if sc, err = sftp.NewClientPipe(r, w, sftp.UseConcurrentWrites(true)); err == nil {
					return sc, func() { sc.Close(); closeSession(s, r) }, nil
				}
			}
		}
	}
	s.Close()
	return nil, nil, fmt.Errorf("deploy: sftp on %s: %w", c, err)
}

// closeSession closes s and waits (a bounded time) for the server's close,
// which ends stdout. (Session.Wait is only for commands, not subsystems.)
func closeSession(s *ssh.Session, stdout io.Reader) {
	s.Close()
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, stdout); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
	}
}

// copyTo writes bin to tmp (mode 0755), reporting progress.
func (d *deployer) copyTo(ctx context.Context, sc *sftp.Client, h inventory.Host, bin binary, tmp string) (int64, error) {
	src, err := os.Open(bin.path)
	if err != nil {
		return 0, fmt.Errorf("deploy: worker binary %s: %w", bin.path, err)
	}
	defer src.Close()
	dst, err := sc.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return 0, fmt.Errorf("deploy: create %s on %s: %w", tmp, h.Name, err)
	}
	pr := &progressReader{ctx: ctx, r: src, size: bin.size, report: func(f float64) {
		d.ev.emit(h.Name, PhaseUpload, f, "", nil)
	}}
	n, err := dst.ReadFrom(pr)
	if cerr := dst.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil && n != bin.size {
		err = fmt.Errorf("wrote %d of %d bytes", n, bin.size)
	}
	if err != nil {
		return n, fmt.Errorf("deploy: upload %s to %s:%s: %w", bin.path, h.Name, tmp, err)
	}
	if err := sc.Chmod(tmp, 0o755); err != nil {
		return n, fmt.Errorf("deploy: chmod %s on %s: %w", tmp, h.Name, err)
	}
	return n, nil
}

// verify checks the uploaded file's sha256 on the host.
func (d *deployer) verify(ctx context.Context, c *sshclient.Conn, h inventory.Host, bin binary, tmp string) error {
	d.ev.emit(h.Name, PhaseVerify, 1, "", nil)
	out, err := c.Exec(ctx, remoteSum(tmp))
	if err != nil {
		return err
	}
	if got := parseSum(string(out)); got != bin.sum {
		return fmt.Errorf("deploy: %s on %s: sha256 %q after upload, want %s", tmp, h.Name, got, bin.sum)
	}
	return nil
}

// staleAge is when another host's upload temporary counts as abandoned.
const staleAge = time.Hour

// tmpName is the prefix of h's upload temporaries. It names the host
// because clusters often share home directories (NFS): hosts uploading into
// the same directory at the same time must not remove each other's files.
func tmpName(host string) string {
	return tmpPrefix + strings.NewReplacer("/", "_", " ", "_").Replace(host) + "-"
}

// removeStale deletes temporaries left by broken uploads: this host's, and
// any other host's older than staleAge.
func removeStale(sc *sftp.Client, wd, host string) {
	old, _ := sc.Glob(path.Join(wd, tmpPrefix+"*"))
	mine := tmpName(host)
	for _, p := range old {
		if strings.HasPrefix(path.Base(p), mine) {
			sc.Remove(p)
			continue
		}
		if st, err := sc.Stat(p); err == nil && time.Since(st.ModTime()) > staleAge {
			sc.Remove(p)
		}
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// progressReader reports the fraction read in steps of 1/100 and stops when
// ctx ends. Size lets sftp use concurrent writes.
type progressReader struct {
	ctx    context.Context
	r      io.Reader
	size   int64
	read   int64
	last   int64
	report func(float64)
}

// Size returns the total number of bytes to read.
func (p *progressReader) Size() int64 { return p.size }

// Read reads from the file, reporting progress and stopping when ctx ends.
func (p *progressReader) Read(b []byte) (int, error) {
	if err := p.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := p.r.Read(b)
	p.read += int64(n)
	if p.size > 0 && (p.read-p.last)*100 >= p.size {
		p.last = p.read
		p.report(float64(p.read) / float64(p.size))
	}
	return n, err
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
