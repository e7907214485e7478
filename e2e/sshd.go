//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
)

// sshdPath is OpenSSH's server (Debian: openssh-server).
const sshdPath = "/usr/sbin/sshd"

// sshdConfig is every host's sshd configuration: public keys only, only the
// host's own user, internal SFTP (gridtui uploads with SFTP). UsePAM is off,
// so no PAM session setup is needed in the namespace.
const sshdConfig = `# gridtui e2e test host %[1]s
ListenAddress %[2]s:%[5]d
HostKey %[3]s/host_ed25519
PidFile %[3]s/sshd.pid
AllowUsers %[4]s
AuthorizedKeysFile .ssh/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin no
UsePAM no
StrictModes yes
PrintMotd no
UseDNS no
MaxStartups 64
MaxSessions 64
ClientAliveInterval 5
ClientAliveCountMax 3
Subsystem sftp internal-sftp
LogLevel VERBOSE
`

// buildSSH creates the test user key, then every host's user and sshd.
func (g *Grid) buildSSH(ctx context.Context) error {
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil { // sshd's privilege separation directory
		return fmt.Errorf("e2e: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(g.Identity), 0o700); err != nil {
		return fmt.Errorf("e2e: console home: %w", err)
	}
	userPub, err := writeKey(g.Identity, "gridtui-e2e-user")
	if err != nil {
		return err
	}
	if err := os.WriteFile(g.Identity+".pub", ssh.MarshalAuthorizedKey(userPub), 0o644); err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	for _, h := range g.sshHosts() {
		if err := g.addUser(ctx, h, userPub); err != nil {
			return err
		}
		if err := g.startSSHD(ctx, h); err != nil {
			return err
		}
	}
	for _, h := range g.sshHosts() {
		if err := waitListening(ctx, h); err != nil {
			return err
		}
	}
	return nil
}

// writeKey writes a new ed25519 private key in OpenSSH format to path and
// returns its public key.
func writeKey(path, comment string) (ssh.PublicKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("e2e: generate key %s: %w", path, err)
	}
	block, err := ssh.MarshalPrivateKey(priv, comment)
	if err != nil {
		return nil, fmt.Errorf("e2e: marshal key %s: %w", path, err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		return nil, fmt.Errorf("e2e: write key: %w", err)
	}
	return ssh.NewPublicKey(pub)
}

// addUser creates h's user with its own home (so gridtui's ~/.gridtui is per
// host although the namespaces share one filesystem) and authorizes the test
// user key. The password is "*": no password login, but not "locked" either
// (sshd without PAM refuses locked accounts even for public keys).
func (g *Grid) addUser(ctx context.Context, h *Host, pub ssh.PublicKey) error {
	if err := os.MkdirAll(filepath.Dir(h.Home), 0o755); err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	if _, err := run(ctx, "useradd", "--no-create-home", "--home-dir", h.Home, "--shell", "/bin/sh",
		"--no-user-group", "--gid", "nogroup", "--password", "*", "--comment", "gridtui e2e "+g.ID, h.User); err != nil {
		return err
	}
	g.mu.Lock()
	g.users = append(g.users, h.User)
	g.mu.Unlock()
	u, err := user.Lookup(h.User)
	if err != nil {
		return fmt.Errorf("e2e: user %s: %w", h.User, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	sshDir := filepath.Join(h.Home, ".ssh")
	if err := os.MkdirAll(sshDir, 0o700); err != nil {
		return fmt.Errorf("e2e: home of %s: %w", h.User, err)
	}
	if err := os.WriteFile(filepath.Join(sshDir, "authorized_keys"), ssh.MarshalAuthorizedKey(pub), 0o600); err != nil {
		return fmt.Errorf("e2e: home of %s: %w", h.User, err)
	}
	for _, p := range []string{h.Home, sshDir, filepath.Join(sshDir, "authorized_keys")} {
		if err := os.Chown(p, uid, gid); err != nil {
			return fmt.Errorf("e2e: home of %s: %w", h.User, err)
		}
	}
	return os.Chmod(h.Home, 0o755)
}

// startSSHD writes h's host key and config and starts sshd in the foreground
// inside h's namespace, logging to h.dir/sshd.log. No Pdeathsig: it fires
// when the forking OS thread exits, which InNetns makes happen; if the test
// process dies, CleanStale kills everything in the stale namespaces.
func (g *Grid) startSSHD(ctx context.Context, h *Host) error {
	if err := os.MkdirAll(h.dir, 0o700); err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	pub, err := writeKey(filepath.Join(h.dir, "host_ed25519"), "gridtui-e2e-host-"+h.Name)
	if err != nil {
		return err
	}
	h.HostKey = pub
	cfgPath := filepath.Join(h.dir, "sshd_config")
	cfg := fmt.Sprintf(sshdConfig, h.Name, h.SSHAddr, h.dir, h.User, h.SSHPort) + h.sshdExtra
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	if _, err := run(ctx, "ip", "netns", "exec", h.Netns, sshdPath, "-t", "-f", cfgPath); err != nil {
		return err
	}
	logf, err := os.Create(filepath.Join(h.dir, "sshd.log"))
	if err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	defer logf.Close()
	// A UTS namespace of its own gives the host its own hostname: the
	// namespaces share the machine's otherwise, and gridtui (rightly) takes
	// nodes with the same hostname for one machine.
	cmd := exec.Command("ip", "netns", "exec", h.Netns, "unshare", "--uts", "--", "sh", "-c",
		`hostname "$0" && exec "$@"`, h.Name, sshdPath, "-D", "-e", "-f", cfgPath)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Ctrl-C reaches the test, which tears down
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("e2e: start sshd on %s: %w", h.Name, err)
	}
	h.sshd = cmd
	return nil
}

// waitListening waits until h's sshd logs that it listens (or exits).
func waitListening(ctx context.Context, h *Host) error {
	logPath := filepath.Join(h.dir, "sshd.log")
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for {
		if data, _ := os.ReadFile(logPath); strings.Contains(string(data), "Server listening on") {
			return nil
		}
		if h.sshd.ProcessState != nil || syscall.Kill(h.sshd.Process.Pid, 0) != nil {
			data, _ := os.ReadFile(logPath)
			return fmt.Errorf("e2e: sshd on %s exited: %s", h.Name, strings.TrimSpace(string(data)))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("e2e: sshd on %s (%s:%d) not listening: %w", h.Name, h.SSHAddr, h.SSHPort, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// SSHDLog returns what h's sshd logged (for failure messages).
func (g *Grid) SSHDLog(host string) string {
	h := g.Host(host)
	if h == nil {
		return ""
	}
	data, _ := os.ReadFile(filepath.Join(h.dir, "sshd.log"))
	return string(data)
}

// stopSSHDs stops every sshd (SIGTERM, then SIGKILL) and reaps it.
func (g *Grid) stopSSHDs() {
	for _, h := range g.sshHosts() {
		if h.sshd == nil || h.sshd.Process == nil {
			continue
		}
		_ = h.sshd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = h.sshd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			_ = h.sshd.Process.Kill()
			<-done
		}
		h.sshd = nil
	}
}

// delUser removes a user; a user that is not there is not an error.
func delUser(ctx context.Context, name string) error {
	if _, err := user.Lookup(name); err != nil {
		var unknown user.UnknownUserError
		if errors.As(err, &unknown) {
			return nil
		}
	}
	_, err := run(ctx, "userdel", name)
	return err
}

// passwdUsers lists the users of /etc/passwd whose name starts with prefix.
func passwdUsers(prefix string) ([]string, error) {
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return nil, fmt.Errorf("e2e: %w", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, _, _ := strings.Cut(sc.Text(), ":")
		if strings.HasPrefix(name, prefix) {
			out = append(out, name)
		}
	}
	return out, sc.Err()
}

// RotateHostKey gives host a new host key and restarts its sshd with it, as
// a reinstalled machine would; the grid's known_hosts keeps the old key.
func (g *Grid) RotateHostKey(ctx context.Context, host string) error {
	h := g.Host(host)
	if h == nil {
		return fmt.Errorf("e2e: no host %q in grid %s", host, g.ID)
	}
	if h.sshd != nil && h.sshd.Process != nil {
		_ = h.sshd.Process.Signal(syscall.SIGTERM)
		_ = h.sshd.Wait()
		h.sshd = nil
	}
	if err := g.startSSHD(ctx, h); err != nil {
		return err
	}
	return waitListening(ctx, h)
}
