package sshclient

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/skeema/knownhosts"
	"golang.org/x/crypto/ssh"
	xknownhosts "golang.org/x/crypto/ssh/knownhosts"
)

// Host key errors. Both are matched with errors.Is; the error text carries the
// host, the key fingerprint and what to do.
var (
	// ErrHostKeyUnknown means the host is not in known_hosts and the key was
	// not accepted (use --accept-new or confirm in the console).
	ErrHostKeyUnknown = errors.New("deploy: unknown host key")
	// ErrHostKeyChanged means known_hosts holds a different key for the host:
	// possibly a man-in-the-middle. It is always refused.
	ErrHostKeyChanged = errors.New("deploy: host key changed")
)

// HostKeyPrompt asks the user whether to trust an unknown host key; it gets
// the host ("[host]:port" form) and the key's SHA256 fingerprint. It is
// called for several hosts at the same time (never twice at once for one),
// so that a console can list every pending key and accept them together.
type HostKeyPrompt func(host, fingerprint string) bool

// trust decides about host keys for a whole pool: one known_hosts database
// per set of files (each host may name its own UserKnownHostsFile), the
// options' --accept-new and prompt, and the keys accepted in this session.
type trust struct {
	override  string // known_hosts forced by the options or the inventory
	acceptNew bool
	prompt    HostKeyPrompt

	mu       sync.Mutex
	dbs      map[string]*hostKeys
	accepted map[string][]byte        // normalized address -> marshaled key
	asking   map[string]chan struct{} // questions open, closed when answered
}

// hostKeys is one known_hosts database: the files read, and the file where
// accepted keys are written.
type hostKeys struct {
	file string
	db   *knownhosts.HostKeyDB
}

// defaultKnownHosts is ~/.ssh/known_hosts.
func defaultKnownHosts() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".ssh", "known_hosts")
}

// globalKnownHosts is OpenSSH's system-wide file, read (never written) when
// it exists.
const globalKnownHosts = "/etc/ssh/ssh_known_hosts"

func newTrust(override string, acceptNew bool, prompt HostKeyPrompt) *trust {
	return &trust{override: override, acceptNew: acceptNew, prompt: prompt,
		dbs: map[string]*hostKeys{}, accepted: map[string][]byte{}, asking: map[string]chan struct{}{}}
}

// keys returns the database for e: the pool's known_hosts file when one is
// forced, else e's UserKnownHostsFile and GlobalKnownHostsFile. Missing
// files are empty ones: the first user file is created when the first key
// is accepted, so merely connecting changes nothing on disk.
func (t *trust) keys(e endpoint) (*hostKeys, error) {
	user, global := e.known, e.global
	if t.override != "" || len(user) == 0 {
		user, global = []string{cmp.Or(t.override, defaultKnownHosts())}, []string{globalKnownHosts}
	}
	user = append([]string(nil), user...)
	for i := range user {
		user[i] = ExpandHome(user[i])
	}
	if user[0] == "" {
		return nil, errors.New("deploy: no known_hosts file: set known_hosts in sites.toml or HOME")
	}
	id := strings.Join(user, "\x00") + "\x00\x00" + strings.Join(global, "\x00")
	t.mu.Lock()
	defer t.mu.Unlock()
	if hk, ok := t.dbs[id]; ok {
		return hk, nil
	}
	var files []string
	for _, f := range append(append([]string(nil), user...), global...) {
		if _, err := os.Stat(f); err == nil {
			files = append(files, f)
		}
	}
	db, err := knownhosts.NewDB(files...)
	if err != nil {
		return nil, fmt.Errorf("deploy: read known_hosts %s: %w", strings.Join(files, ", "), err)
	}
	hk := &hostKeys{file: user[0], db: db}
	t.dbs[id] = hk
	return hk, nil
}

// algorithms returns the host key algorithms known_hosts has for addr, so the
// server offers a key we can verify (empty: let the server choose).
func (hk *hostKeys) algorithms(addr string) []string {
	return hk.db.HostKeyAlgorithms(addr)
}

// callback returns the ssh.HostKeyCallback for one dialed address under the
// StrictHostKeyChecking mode strict. addr is the "host:port" we dialed, which
// is what known_hosts records. wait is called before any wait for the user or
// for another host's question, and what it returns after: the handshake's
// timeout stops meanwhile.
func (hk *hostKeys) callback(t *trust, addr, strict string, wait func() func()) ssh.HostKeyCallback {
	inner := hk.db.HostKeyCallback()
	return func(_ string, remote net.Addr, key ssh.PublicKey) error {
		err := inner(addr, remote, key)
		if err == nil {
			return nil
		}
		fp := ssh.FingerprintSHA256(key)
		norm := knownhosts.Normalize(addr)
		if knownhosts.IsHostKeyChanged(err) {
			return fmt.Errorf("%w: %s now presents %s %s, which does not match %s: refusing (remove the old line if the change is expected)",
				ErrHostKeyChanged, norm, key.Type(), fp, hk.file)
		}
		if !knownhosts.IsHostUnknown(err) {
			return fmt.Errorf("deploy: verify host key of %s: %w", norm, err)
		}
		resume := wait()
		defer resume()
		return t.unknown(hk, norm, strict, key, fp)
	}
}

// unknown decides about a key known_hosts has never seen for norm: recorded
// when --accept-new was given or StrictHostKeyChecking is accept-new (or no),
// refused when it is yes, asked about otherwise (ask, OpenSSH's default).
// Questions about different hosts are asked at the same time, so that the
// console can show them all (and accept them all at once); a second
// connection to the same address waits for the first one's answer.
func (t *trust) unknown(hk *hostKeys, norm, strict string, key ssh.PublicKey, fp string) error {
	t.mu.Lock()
	for q, ok := t.asking[norm]; ok; q, ok = t.asking[norm] {
		t.mu.Unlock()
		<-q
		t.mu.Lock()
	}
	if prev, ok := t.accepted[norm]; ok {
		t.mu.Unlock()
		if bytes.Equal(prev, key.Marshal()) {
			return nil
		}
		return fmt.Errorf("%w: %s presents %s, not the key accepted earlier in this session", ErrHostKeyChanged, norm, fp)
	}
	ok := t.acceptNew || strict == "accept-new" || strict == "no"
	if !ok && (strict == "yes" || t.prompt == nil) {
		t.mu.Unlock()
		if strict == "yes" {
			return fmt.Errorf("%w: %s presents %s %s, not in %s, and StrictHostKeyChecking is yes for it in the ssh configuration",
				ErrHostKeyUnknown, norm, key.Type(), fp, hk.file)
		}
		return t.refused(norm, key, fp)
	}
	done := make(chan struct{})
	t.asking[norm] = done
	defer func() {
		delete(t.asking, norm)
		close(done)
		t.mu.Unlock()
	}()
	if !ok {
		t.mu.Unlock()
		ok = t.prompt(norm, fp)
		t.mu.Lock()
	}
	if !ok {
		return t.refused(norm, key, fp)
	}
	if err := appendKnownHost(hk.file, norm, key); err != nil {
		return err
	}
	t.accepted[norm] = key.Marshal()
	return nil
}

func (t *trust) refused(norm string, key ssh.PublicKey, fp string) error {
	return fmt.Errorf("%w: %s presents %s %s; to trust it, run gridtui deploy --accept-new (or accept it in the console)",
		ErrHostKeyUnknown, norm, key.Type(), fp)
}

// appendKnownHost writes a hashed known_hosts line for norm (as OpenSSH does
// with HashKnownHosts yes, so the file does not list the grid's hosts).
func appendKnownHost(file, norm string, key ssh.PublicKey) error {
	line := xknownhosts.HashHostname(norm) + " " + key.Type() + " " +
		base64.StdEncoding.EncodeToString(key.Marshal()) + "\n"
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("deploy: record host key of %s in %s: %w", norm, file, err)
	}
	f, err := os.OpenFile(file, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("deploy: record host key of %s in %s: %w", norm, file, err)
	}
	// Never glue our line to a last line that lacks its newline.
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			line = "\n" + line
		}
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return fmt.Errorf("deploy: record host key of %s in %s: %w", norm, file, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("deploy: record host key of %s in %s: %w", norm, file, err)
	}
	return nil
}
