package deploy

import (
	"os"
	"path/filepath"

	"github.com/kevinburke/ssh_config"
)

// SSHConfig answers what ~/.ssh/config says about a host. Get returns "" when
// the file says nothing, so that the inventory's own values and the built-in
// defaults can be told apart from the user's configuration.
type SSHConfig interface {
	Get(host, key string) string
	GetAll(host, key string) []string
}

// sshFile is an SSHConfig backed by one parsed OpenSSH client config file.
type sshFile struct{ cfg *ssh_config.Config }

// ParseSSHConfig parses an OpenSSH client configuration.
func ParseSSHConfig(data []byte) (SSHConfig, error) {
	cfg, err := ssh_config.DecodeBytes(data)
	if err != nil {
		return nil, err
	}
	return sshFile{cfg}, nil
}

// DefaultSSHConfig reads ~/.ssh/config. A missing or unreadable file yields
// nil (nothing said); a malformed one is ignored too, since ssh itself would
// complain about it at connect time.
func DefaultSSHConfig() SSHConfig {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(home, ".ssh", "config"))
	if err != nil {
		return nil
	}
	c, err := ParseSSHConfig(data)
	if err != nil {
		return nil
	}
	return c
}

func (f sshFile) Get(host, key string) string {
	v, err := f.cfg.Get(host, key)
	if err != nil {
		return ""
	}
	return v
}

func (f sshFile) GetAll(host, key string) []string {
	v, err := f.cfg.GetAll(host, key)
	if err != nil {
		return nil
	}
	return v
}
