package sshclient

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kevinburke/ssh_config"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// HostConfig is how OpenSSH would reach one host name: what `ssh -G NAME`
// prints, reduced to the options gridtui honours.
type HostConfig struct {
	HostName              string
	User                  string
	Port                  int
	IdentityFiles         []string
	CertificateFiles      []string
	IdentitiesOnly        bool
	ProxyJump             string // "" when none
	ProxyCommand          string // "" when none; %h %p %r %n %% not yet expanded
	UserKnownHostsFiles   []string
	GlobalKnownHostsFiles []string
	// StrictHostKeyChecking is "yes", "accept-new", "ask" or "no".
	StrictHostKeyChecking string
	ConnectTimeout        time.Duration // 0: not set
	ServerAliveInterval   time.Duration // 0: not set
	ServerAliveCountMax   int
}

// SSHQuery names the host to resolve, with the values the inventory states
// explicitly: like ssh's -l, -p and -J, they win over the configuration.
type SSHQuery struct {
	Name      string
	User      string
	Port      int
	ProxyJump string
}

// SSHResolver resolves host names the way OpenSSH does.
type SSHResolver interface {
	Resolve(ctx context.Context, q SSHQuery) (HostConfig, error)
}

// NewSSHResolver returns the resolver OpenSSH itself would agree with: `ssh
// -G` when ssh is installed, else a parser of ~/.ssh/config and
// /etc/ssh/ssh_config. configFile, when set, replaces both files (ssh -F;
// "none" reads no file at all).
//
// ssh finds ~/.ssh/config in the account's home directory, not in $HOME;
// gridtui reads known_hosts and identity files under $HOME, so when the two
// differ (a test or a container setting HOME) $HOME/.ssh/config is passed to
// ssh -F for the same view (and /etc/ssh/ssh_config when there is none).
func NewSSHResolver(configFile string) SSHResolver {
	if path, err := exec.LookPath("ssh"); err == nil {
		if configFile == "" {
			configFile = homeConfig()
		}
		return SSHCommand{Path: path, ConfigFile: configFile}
	}
	switch configFile {
	case "":
		var files []string
		if home, err := os.UserHomeDir(); err == nil {
			files = append(files, filepath.Join(home, ".ssh", "config"))
		}
		return SSHFiles{Files: append(files, "/etc/ssh/ssh_config")}
	case "none":
		return SSHFiles{}
	default:
		return SSHFiles{Files: []string{configFile}, Required: true}
	}
}

// homeConfig is "" when $HOME is the account's home directory (ssh finds the
// files itself), else the file ssh -F should read.
func homeConfig() string {
	home := os.Getenv("HOME")
	u, err := user.Current()
	if home == "" || err != nil || filepath.Clean(u.HomeDir) == filepath.Clean(home) {
		return ""
	}
	for _, f := range []string{filepath.Join(home, ".ssh", "config"), "/etc/ssh/ssh_config"} {
		if _, err := os.Stat(f); err == nil {
			return f
		}
	}
	return "none"
}

// SSHCommand resolves with `ssh -G`, so Match blocks, Include, tokens and
// canonicalization behave exactly as for the user's own ssh.
type SSHCommand struct {
	Path       string // the ssh binary
	ConfigFile string // ssh -F (empty: ssh's own default files)
}

// Resolve runs `ssh -G` for q.
func (c SSHCommand) Resolve(ctx context.Context, q SSHQuery) (HostConfig, error) {
	if err := checkQuery(q); err != nil {
		return HostConfig{}, err
	}
	args := []string{"-G"}
	if c.ConfigFile != "" {
		args = append(args, "-F", c.ConfigFile)
	}
	if q.User != "" {
		args = append(args, "-l", q.User)
	}
	if q.Port != 0 {
		args = append(args, "-p", strconv.Itoa(q.Port))
	}
	if q.ProxyJump != "" {
		args = append(args, "-J", q.ProxyJump)
	}
	args = append(args, "--", q.Name)
	cmd := exec.CommandContext(ctx, c.Path, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		return HostConfig{}, fmt.Errorf("deploy: host %s: ssh -G: %w: %s", q.Name, err, msg)
	}
	hc, err := parseSSHG(out)
	if err != nil {
		return HostConfig{}, fmt.Errorf("deploy: host %s: ssh -G output: %w", q.Name, err)
	}
	return hc, nil
}

// checkQuery refuses names ssh would take for options or that cannot be hosts.
func checkQuery(q SSHQuery) error {
	if q.Name == "" || strings.HasPrefix(q.Name, "-") || strings.ContainsAny(q.Name, " \t\n/") {
		return fmt.Errorf("deploy: bad host name %q", q.Name)
	}
	if q.Port < 0 || q.Port > 65535 {
		return fmt.Errorf("deploy: host %s: port %d is not between 1 and 65535", q.Name, q.Port)
	}
	return nil
}

// parseSSHG decodes the "keyword value" lines that `ssh -G` prints.
func parseSSHG(out []byte) (HostConfig, error) {
	hc := HostConfig{ServerAliveCountMax: 3}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		key, val, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if err := hc.set(strings.ToLower(key), strings.TrimSpace(val)); err != nil {
			return hc, fmt.Errorf("line %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return hc, err
	}
	if hc.HostName == "" {
		return hc, errors.New("no hostname")
	}
	return hc, nil
}

// set applies one keyword (lower case) of ssh's configuration.
func (hc *HostConfig) set(key, val string) error {
	var err error
	switch key {
	case "hostname":
		hc.HostName = val
	case "user":
		hc.User = val
	case "port":
		hc.Port, err = strconv.Atoi(val)
		if err == nil && (hc.Port <= 0 || hc.Port > 65535) {
			err = fmt.Errorf("port %d is not between 1 and 65535", hc.Port)
		}
	case "identityfile":
		hc.IdentityFiles = append(hc.IdentityFiles, val)
	case "certificatefile":
		hc.CertificateFiles = append(hc.CertificateFiles, val)
	case "identitiesonly":
		hc.IdentitiesOnly = yes(val)
	case "proxyjump":
		hc.ProxyJump = noneToEmpty(val)
	case "proxycommand":
		hc.ProxyCommand = noneToEmpty(val)
	case "userknownhostsfile":
		hc.UserKnownHostsFiles = strings.Fields(val)
	case "globalknownhostsfile":
		hc.GlobalKnownHostsFiles = strings.Fields(val)
	case "stricthostkeychecking":
		hc.StrictHostKeyChecking, err = strictMode(val)
	case "connecttimeout":
		hc.ConnectTimeout, err = seconds(val)
	case "serveraliveinterval":
		hc.ServerAliveInterval, err = seconds(val)
	case "serveralivecountmax":
		hc.ServerAliveCountMax, err = strconv.Atoi(val)
	}
	if err != nil {
		return fmt.Errorf("%s %q: %w", key, val, err)
	}
	return nil
}

func yes(v string) bool {
	switch strings.ToLower(v) {
	case "yes", "true":
		return true
	}
	return false
}

func noneToEmpty(v string) string {
	if strings.EqualFold(v, "none") {
		return ""
	}
	return v
}

// strictMode maps the spellings of StrictHostKeyChecking (ssh -G prints
// true/false for yes/no) to yes, no, ask or accept-new.
func strictMode(v string) (string, error) {
	switch strings.ToLower(v) {
	case "yes", "true":
		return "yes", nil
	case "no", "false", "off":
		return "no", nil
	case "ask", "":
		return "ask", nil
	case "accept-new":
		return "accept-new", nil
	}
	return "", errors.New("want yes, no, ask or accept-new")
}

// seconds parses a whole number of seconds; "none" and 0 mean not set.
func seconds(v string) (time.Duration, error) {
	if strings.EqualFold(v, "none") {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, errors.New("want a number of seconds")
	}
	return time.Duration(n) * time.Second, nil
}

// SSHFiles resolves by parsing OpenSSH configuration files, for machines
// without ssh. The first file to set a keyword wins, as in OpenSSH (user
// file first, then the system-wide one). Match blocks are not understood.
type SSHFiles struct {
	Files    []string
	Required bool // a missing file is an error (it was named explicitly)
}

// Resolve reads the files and resolves q from them and OpenSSH's defaults.
func (f SSHFiles) Resolve(_ context.Context, q SSHQuery) (HostConfig, error) {
	if err := checkQuery(q); err != nil {
		return HostConfig{}, err
	}
	var cfgs []*ssh_config.Config
	for _, file := range f.Files {
		data, err := os.ReadFile(file)
		if err != nil {
			if f.Required || !errors.Is(err, os.ErrNotExist) {
				return HostConfig{}, fmt.Errorf("deploy: ssh config: %w", err)
			}
			continue
		}
		c, err := ssh_config.DecodeBytes(data)
		if err != nil {
			return HostConfig{}, fmt.Errorf("deploy: ssh config %s: %w", file, err)
		}
		cfgs = append(cfgs, c)
	}
	get := func(key string) []string {
		for _, c := range cfgs {
			if v, err := c.GetAll(q.Name, key); err == nil && len(v) > 0 && v[0] != "" {
				return v
			}
		}
		return nil
	}
	return resolveFiles(q, get)
}

// resolveFiles fills a HostConfig from get (a keyword's values for the host),
// the query's explicit values and OpenSSH's defaults.
func resolveFiles(q SSHQuery, get func(string) []string) (HostConfig, error) {
	hc := HostConfig{ServerAliveCountMax: 3, StrictHostKeyChecking: "ask"}
	for _, key := range []string{"hostname", "user", "port", "identitiesonly", "proxyjump", "proxycommand",
		"stricthostkeychecking", "connecttimeout", "serveraliveinterval", "serveralivecountmax"} {
		if v := get(key); len(v) > 0 {
			if err := hc.set(key, v[0]); err != nil {
				return hc, fmt.Errorf("deploy: host %s: ssh config: %w", q.Name, err)
			}
		}
	}
	hc.IdentityFiles = get("identityfile")
	hc.CertificateFiles = get("certificatefile")
	if v := get("userknownhostsfile"); len(v) > 0 {
		hc.UserKnownHostsFiles = strings.Fields(strings.Join(v, " "))
	}
	if v := get("globalknownhostsfile"); len(v) > 0 {
		hc.GlobalKnownHostsFiles = strings.Fields(strings.Join(v, " "))
	}
	hc.HostName = strings.ReplaceAll(cmp.Or(hc.HostName, q.Name), "%h", q.Name)
	hc.User = cmp.Or(q.User, hc.User, defaultUser())
	hc.Port = cmp.Or(q.Port, hc.Port, inventory.DefaultPort)
	if q.ProxyJump != "" {
		hc.ProxyJump, hc.ProxyCommand = noneToEmpty(q.ProxyJump), ""
	}
	if len(hc.IdentityFiles) == 0 {
		hc.IdentityFiles = []string{"~/.ssh/id_rsa", "~/.ssh/id_ecdsa", "~/.ssh/id_ed25519"}
	}
	if len(hc.UserKnownHostsFiles) == 0 {
		hc.UserKnownHostsFiles = []string{"~/.ssh/known_hosts", "~/.ssh/known_hosts2"}
	}
	if len(hc.GlobalKnownHostsFiles) == 0 {
		hc.GlobalKnownHostsFiles = []string{"/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2"}
	}
	return hc, nil
}

// resolveTimeout bounds one resolution (ssh -G runs Match exec commands).
const resolveTimeout = 30 * time.Second

// cachedResolver resolves each query once per pool: a site's hosts share
// their frontend, which would otherwise be resolved again for every host.
type cachedResolver struct {
	r       SSHResolver
	mu      sync.Mutex
	results map[SSHQuery]*cachedConfig
}

type cachedConfig struct {
	once sync.Once
	hc   HostConfig
	err  error
}

func newCachedResolver(r SSHResolver) *cachedResolver {
	return &cachedResolver{r: r, results: map[SSHQuery]*cachedConfig{}}
}

// Resolve returns the first answer for q (errors too: the configuration
// does not change during a deploy).
func (c *cachedResolver) Resolve(ctx context.Context, q SSHQuery) (HostConfig, error) {
	c.mu.Lock()
	e, ok := c.results[q]
	if !ok {
		e = &cachedConfig{}
		c.results[q] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		// Not the first caller's context: its end would fail every host.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), resolveTimeout)
		defer cancel()
		e.hc, e.err = c.r.Resolve(rctx, q)
	})
	return e.hc, e.err
}
