package deploy

import (
	"bytes"
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
// the host ("[host]:port" form) and the key's SHA256 fingerprint.
type HostKeyPrompt func(host, fingerprint string) bool

// hostKeys verifies host keys against known_hosts files, and records keys the
// user accepted, hashed, in the first file.
type hostKeys struct {
	file      string // where accepted keys are written
	db        *knownhosts.HostKeyDB
	acceptNew bool
	prompt    HostKeyPrompt

	mu       sync.Mutex
	accepted map[string][]byte // normalized address -> marshaled key
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

// newHostKeys loads file (and the system-wide file). A missing file is an
// empty one: it is created when the first key is accepted, so merely
// building a pool changes nothing on disk.
func newHostKeys(file string, acceptNew bool, prompt HostKeyPrompt) (*hostKeys, error) {
	if file == "" {
		file = defaultKnownHosts()
	}
	if file == "" {
		return nil, errors.New("deploy: no known_hosts file: set known_hosts in sites.toml or HOME")
	}
	var files []string
	for _, f := range []string{file, globalKnownHosts} {
		if _, err := os.Stat(f); err == nil {
			files = append(files, f)
		}
	}
	db, err := knownhosts.NewDB(files...)
	if err != nil {
		return nil, fmt.Errorf("deploy: read known_hosts %s: %w", strings.Join(files, ", "), err)
	}
	return &hostKeys{file: file, db: db, acceptNew: acceptNew, prompt: prompt, accepted: map[string][]byte{}}, nil
}

// algorithms returns the host key algorithms known_hosts has for addr, so the
// server offers a key we can verify (empty: let the server choose).
func (hk *hostKeys) algorithms(addr string) []string {
	return hk.db.HostKeyAlgorithms(addr)
}

// callback returns the ssh.HostKeyCallback for one dialed address. addr is
// the "host:port" we dialed, which is what known_hosts records.
func (hk *hostKeys) callback(addr string) ssh.HostKeyCallback {
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
		return hk.unknown(norm, key, fp)
	}
}

// unknown decides about a key known_hosts has never seen for norm.
func (hk *hostKeys) unknown(norm string, key ssh.PublicKey, fp string) error {
	hk.mu.Lock()
	defer hk.mu.Unlock()
	if prev, ok := hk.accepted[norm]; ok {
		if bytes.Equal(prev, key.Marshal()) {
			return nil
		}
		return fmt.Errorf("%w: %s presents %s, not the key accepted earlier in this session", ErrHostKeyChanged, norm, fp)
	}
	ok := hk.acceptNew
	if !ok && hk.prompt != nil {
		ok = hk.prompt(norm, fp)
	}
	if !ok {
		return fmt.Errorf("%w: %s presents %s %s; to trust it, run gridtui deploy --accept-new (or accept it in the console)",
			ErrHostKeyUnknown, norm, key.Type(), fp)
	}
	if err := appendKnownHost(hk.file, norm, key); err != nil {
		return err
	}
	hk.accepted[norm] = key.Marshal()
	return nil
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
