package sshclient

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// ChallengePrompt answers a keyboard-interactive challenge from host: the
// server's instruction, its questions, and for each whether the answer may
// be echoed (false for codes and passwords).
type ChallengePrompt func(host, instruction string, questions []string, echo []bool) ([]string, error)

// PassphrasePrompt asks for the passphrase of an encrypted identity file; host
// is the host being connected to, for the prompt's text.
type PassphrasePrompt func(host, keyfile string) ([]byte, error)

// keyring holds the authentication methods shared by every connection of a
// Pool: the ssh-agent (SSH_AUTH_SOCK) first, then identity files, each file
// read and decrypted at most once even when 32 hosts connect at the same time.
type keyring struct {
	agentSock  string
	passphrase PassphrasePrompt
	challenge  ChallengePrompt

	agentOnce sync.Once
	agent     agent.ExtendedAgent
	agentConn net.Conn

	mu      sync.Mutex
	signers map[string]ssh.Signer // by identity file
	failed  map[string]error
}

func newKeyring(agentSock string, passphrase PassphrasePrompt, challenge ChallengePrompt) *keyring {
	if agentSock == "" {
		agentSock = os.Getenv("SSH_AUTH_SOCK")
	}
	if agentSock == "none" {
		agentSock = ""
	}
	return &keyring{agentSock: agentSock, passphrase: passphrase, challenge: challenge,
		signers: map[string]ssh.Signer{}, failed: map[string]error{}}
}

// close releases the agent connection.
func (k *keyring) close() {
	if k.agentConn != nil {
		k.agentConn.Close()
	}
}

// methods returns the auth methods for e: certificates first, then agent keys
// (with IdentitiesOnly, only those of e's identity files), then identity
// files, then keyboard-interactive when a challenge prompt is set (wait
// stops the handshake's clock while the user answers). A file the inventory
// names that cannot be read is an error; files from the ssh configuration
// (and its defaults) are skipped when missing, as ssh does.
func (k *keyring) methods(e endpoint, wait func() func()) ([]ssh.AuthMethod, error) {
	signers, problems, err := k.signersFor(e)
	if err != nil {
		return nil, err
	}
	var ki []ssh.AuthMethod
	if k.challenge != nil {
		ki = append(ki, ssh.KeyboardInteractive(func(name, instruction string, questions []string, echos []bool) ([]string, error) {
			if len(questions) == 0 {
				return nil, nil
			}
			defer wait()()
			return k.challenge(e.String(), strings.TrimSpace(name+"\n"+instruction), questions, echos)
		}))
	}
	if len(signers) == 0 && len(ki) > 0 {
		return ki, nil
	}
	if len(signers) == 0 {
		why := "no agent (SSH_AUTH_SOCK) and no usable identity file"
		if len(problems) > 0 {
			why += ": " + strings.Join(problems, "; ")
		}
		return nil, fmt.Errorf("deploy: no ssh key for %s: %s", e, why)
	}
	return append([]ssh.AuthMethod{ssh.PublicKeys(signers...)}, ki...), nil
}

// signersFor returns the keys offered to e, in the order they are tried:
// certificates, agent keys, identity files; problems are the identity files
// of the ssh configuration that exist but could not be used.
func (k *keyring) signersFor(e endpoint) ([]ssh.Signer, []string, error) {
	var files []ssh.Signer
	var problems []string
	for _, f := range e.explicit {
		s, err := k.signer(e.name, ExpandHome(f))
		if err != nil {
			return nil, nil, err
		}
		files = append(files, s)
	}
	for _, f := range e.identity {
		s, err := k.signer(e.name, ExpandHome(f))
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				problems = append(problems, err.Error())
			}
			continue
		}
		files = append(files, s)
	}
	var agentKeys []ssh.Signer
	if ag := k.agentClient(); ag != nil {
		if s, err := ag.Signers(); err == nil {
			agentKeys = s
		}
	}
	if e.only {
		agentKeys = onlyIdentities(agentKeys, append(append([]string(nil), e.explicit...), e.identity...))
	}
	signers := append(agentKeys, files...)
	certs, err := k.certSigners(e, signers)
	if err != nil {
		return nil, nil, err
	}
	return append(certs, signers...), problems, nil
}

// onlyIdentities keeps the agent keys whose public half is one of files
// (read from FILE.pub), as IdentitiesOnly asks.
func onlyIdentities(agentKeys []ssh.Signer, files []string) []ssh.Signer {
	want := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(ExpandHome(f) + ".pub")
		if err != nil {
			continue
		}
		if pk, _, _, _, err := ssh.ParseAuthorizedKey(data); err == nil {
			want[string(pk.Marshal())] = true
		}
	}
	var out []ssh.Signer
	for _, s := range agentKeys {
		if want[string(s.PublicKey().Marshal())] {
			out = append(out, s)
		}
	}
	return out
}

// certSigners pairs each user certificate (CertificateFile, and FILE-cert.pub
// beside each identity file, as ssh looks for) with the signer of its key.
// A configured certificate that cannot be read, or whose key is none of
// ours, is an error naming it.
func (k *keyring) certSigners(e endpoint, signers []ssh.Signer) ([]ssh.Signer, error) {
	var out []ssh.Signer
	try := func(file string, required bool) error {
		data, err := os.ReadFile(ExpandHome(file))
		if err != nil {
			if !required && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return fmt.Errorf("deploy: certificate file %s for %s: %w", file, e, err)
		}
		pk, _, _, _, err := ssh.ParseAuthorizedKey(data)
		cert, ok := pk.(*ssh.Certificate)
		if err != nil || !ok {
			return fmt.Errorf("deploy: certificate file %s for %s: not an OpenSSH certificate", file, e)
		}
		for _, s := range signers {
			if bytes.Equal(s.PublicKey().Marshal(), cert.Key.Marshal()) {
				cs, err := ssh.NewCertSigner(cert, s)
				if err != nil {
					return fmt.Errorf("deploy: certificate file %s for %s: %w", file, e, err)
				}
				out = append(out, cs)
				return nil
			}
		}
		if required {
			return fmt.Errorf("deploy: certificate file %s for %s: no identity file or agent key matches its key", file, e)
		}
		return nil
	}
	for _, f := range e.certs {
		if err := try(f, true); err != nil {
			return nil, err
		}
	}
	for _, f := range append(append([]string(nil), e.explicit...), e.identity...) {
		if err := try(f+"-cert.pub", false); err != nil {
			return nil, err
		}
	}
	return out, nil
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

// ExpandHome turns a leading "~/" into the user's home directory.
func ExpandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}
