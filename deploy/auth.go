package deploy

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// PassphrasePrompt asks for the passphrase of an encrypted identity file; host
// is the host being connected to, for the prompt's text.
type PassphrasePrompt func(host, keyfile string) ([]byte, error)

// keyring holds the authentication methods shared by every connection of a
// Pool: the ssh-agent (SSH_AUTH_SOCK) first, then identity files, each file
// read and decrypted at most once even when 32 hosts connect at the same time.
type keyring struct {
	agentSock  string
	passphrase PassphrasePrompt

	agentOnce sync.Once
	agent     agent.ExtendedAgent
	agentConn net.Conn

	mu      sync.Mutex
	signers map[string]ssh.Signer // by identity file
	failed  map[string]error
}

func newKeyring(agentSock string, passphrase PassphrasePrompt) *keyring {
	if agentSock == "" {
		agentSock = os.Getenv("SSH_AUTH_SOCK")
	}
	if agentSock == "none" {
		agentSock = ""
	}
	return &keyring{agentSock: agentSock, passphrase: passphrase,
		signers: map[string]ssh.Signer{}, failed: map[string]error{}}
}

// close releases the agent connection.
func (k *keyring) close() {
	if k.agentConn != nil {
		k.agentConn.Close()
	}
}

// defaultIdentities are the files OpenSSH tries when none is configured.
func defaultIdentities() []string {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
		p := filepath.Join(home, ".ssh", n)
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// methods returns the auth methods for host: agent keys, then identity files.
// An explicitly configured identity file that cannot be read is an error.
func (k *keyring) methods(host string, files []string) ([]ssh.AuthMethod, error) {
	var signers []ssh.Signer
	if ag := k.agentClient(); ag != nil {
		if s, err := ag.Signers(); err == nil {
			signers = append(signers, s...)
		}
	}
	explicit := len(files) > 0
	if !explicit {
		files = defaultIdentities()
	}
	for _, f := range files {
		s, err := k.signer(host, expandHome(f))
		if err != nil {
			if explicit {
				return nil, err
			}
			continue
		}
		signers = append(signers, s)
	}
	if len(signers) == 0 {
		return nil, fmt.Errorf("deploy: no ssh key for %s: no agent (SSH_AUTH_SOCK) and no usable identity file", host)
	}
	return []ssh.AuthMethod{ssh.PublicKeys(signers...)}, nil
}

func (k *keyring) agentClient() agent.ExtendedAgent {
	k.agentOnce.Do(func() {
		if k.agentSock == "" {
			return
		}
		c, err := net.Dial("unix", k.agentSock)
		if err != nil {
			return
		}
		k.agentConn = c
		k.agent = agent.NewClient(c)
	})
	return k.agent
}

// signer reads file once; an encrypted key asks for its passphrase through
// the prompt, holding the lock so that only one prompt shows at a time.
func (k *keyring) signer(host, file string) (ssh.Signer, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if s, ok := k.signers[file]; ok {
		return s, nil
	}
	if err, ok := k.failed[file]; ok {
		return nil, err
	}
	s, err := k.load(host, file)
	if err != nil {
		k.failed[file] = err
		return nil, err
	}
	k.signers[file] = s
	return s, nil
}

func (k *keyring) load(host, file string) (ssh.Signer, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("deploy: identity file %s: %w", file, err)
	}
	s, err := ssh.ParsePrivateKey(pem)
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		if k.passphrase == nil {
			return nil, fmt.Errorf("deploy: identity file %s is encrypted and no passphrase prompt is available (use ssh-agent)", file)
		}
		pass, perr := k.passphrase(host, file)
		if perr != nil {
			return nil, fmt.Errorf("deploy: passphrase for %s: %w", file, perr)
		}
		s, err = ssh.ParsePrivateKeyWithPassphrase(pem, pass)
		clear(pass)
	}
	if err != nil {
		return nil, fmt.Errorf("deploy: identity file %s: %w", file, err)
	}
	return s, nil
}

// expandHome turns a leading "~/" into the user's home directory.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}
