package sshclient

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// SignerAgent is a read-only ssh agent over a set of signers: what the
// relay's forwarded agent offers. It cannot add, remove or lock keys.
type SignerAgent struct {
	mu      sync.Mutex
	signers []ssh.Signer
}

// NewSignerAgent returns a read-only agent offering signers.
func NewSignerAgent(signers ...ssh.Signer) *SignerAgent {
	a := &SignerAgent{}
	a.add(signers)
	return a
}

var errReadOnlyAgent = errors.New("deploy: the relay's agent is read-only")

func (a *SignerAgent) add(signers []ssh.Signer) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range signers {
		dup := false
		for _, o := range a.signers {
			dup = dup || bytes.Equal(o.PublicKey().Marshal(), s.PublicKey().Marshal())
		}
		if !dup {
			a.signers = append(a.signers, s)
		}
	}
}

// List returns the public keys of the signers.
func (a *SignerAgent) List() ([]*agent.Key, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*agent.Key
	for _, s := range a.signers {
		pk := s.PublicKey()
		out = append(out, &agent.Key{Format: pk.Type(), Blob: pk.Marshal(), Comment: "gridtui relay"})
	}
	return out, nil
}

// Sign signs data with the signer of key.
func (a *SignerAgent) Sign(key ssh.PublicKey, data []byte) (*ssh.Signature, error) {
	return a.SignWithFlags(key, data, 0)
}

// SignWithFlags signs data with the signer of key, with the RSA SHA-2
// algorithm the flags ask for.
func (a *SignerAgent) SignWithFlags(key ssh.PublicKey, data []byte, flags agent.SignatureFlags) (*ssh.Signature, error) {
	a.mu.Lock()
	var s ssh.Signer
	for _, o := range a.signers {
		if bytes.Equal(o.PublicKey().Marshal(), key.Marshal()) {
			s = o
		}
	}
	a.mu.Unlock()
	if s == nil {
		return nil, errors.New("deploy: the relay's agent has no such key")
	}
	alg := ""
	switch {
	case flags&agent.SignatureFlagRsaSha256 != 0:
		alg = ssh.KeyAlgoRSASHA256
	case flags&agent.SignatureFlagRsaSha512 != 0:
		alg = ssh.KeyAlgoRSASHA512
	}
	if as, ok := s.(ssh.AlgorithmSigner); ok && alg != "" {
		return as.SignWithAlgorithm(rand.Reader, data, alg)
	}
	return s.Sign(rand.Reader, data)
}

// Signers returns the signers.
func (a *SignerAgent) Signers() ([]ssh.Signer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]ssh.Signer(nil), a.signers...), nil
}

// Add refuses: the agent is read-only.
func (a *SignerAgent) Add(agent.AddedKey) error { return errReadOnlyAgent }

// Remove refuses: the agent is read-only.
func (a *SignerAgent) Remove(ssh.PublicKey) error { return errReadOnlyAgent }

// RemoveAll refuses: the agent is read-only.
func (a *SignerAgent) RemoveAll() error { return errReadOnlyAgent }

// Lock refuses: the agent is read-only.
func (a *SignerAgent) Lock([]byte) error { return errReadOnlyAgent }

// Unlock refuses: the agent is read-only.
func (a *SignerAgent) Unlock([]byte) error { return errReadOnlyAgent }

// Extension is not supported.
func (a *SignerAgent) Extension(string, []byte) ([]byte, error) {
	return nil, agent.ErrExtensionUnsupported
}

// ForwardAgent makes c answer the server's agent channels with a read-only
// agent holding signers (added to those of earlier calls). Only sessions
// that ask for agent forwarding (the relay's) give the server a way to use it.
func (c *Conn) ForwardAgent(signers []ssh.Signer) error {
	c.agentOnce.Do(func() {
		c.agent = &SignerAgent{}
		if err := agent.ForwardToAgent(c.client, c.agent); err != nil {
			c.agentErr = fmt.Errorf("deploy: agent forwarding on %s: %w", c.ep, err)
		}
	})
	if c.agentErr != nil {
		return c.agentErr
	}
	c.agent.add(signers)
	return nil
}
