package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
)

func runDeployArgs(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	root := newRootCmd()
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(append([]string{"deploy"}, args...))
	err := root.Execute()
	return out.String(), err
}

// TestDeployContradictoryFlags checks that --start with --stop or --clean is
// refused before anything is done, instead of --start being ignored.
func TestDeployContradictoryFlags(t *testing.T) {
	tests := map[string]struct {
		args []string
		want string
	}{
		"start stop":       {[]string{"--stop", "--start"}, "--start and --stop contradict"},
		"start clean":      {[]string{"--start", "--clean"}, "--start and --clean contradict"},
		"start stop clean": {[]string{"--start", "--clean", "--stop"}, "--start and --clean contradict"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			out, err := runDeployArgs(t, append(tc.args, "--sites", "/nonexistent/sites.toml")...)
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want exit 2 with %q", err, tc.want)
			}
			if out != "" {
				t.Errorf("printed before refusing: %q", out)
			}
		})
	}
}

// TestDeployErrorPrefix checks that a failed deploy reads "gridtui deploy:
// hosts failed", not "gridtui deploy: deploy: hosts failed", and still wraps
// deploy.ErrHostsFailed. The only host is an SSH host on a closed loopback
// port with no key, so it fails at once.
func TestDeployErrorPrefix(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("SSH_AUTH_SOCK", "")
	sites := filepath.Join(home, "sites.toml")
	doc := "[defaults]\nuser = \"nobody\"\nidentity_files = [\"" + filepath.Join(home, "no_key") + "\"]\nconnect_timeout = \"2s\"\n" +
		"[[site]]\nname = \"lo\"\nport = 1\n  [[site.cluster]]\n  name = \"c\"\n  hosts = [\"127.0.0.1\"]\n  cores = 1\n"
	if err := os.WriteFile(sites, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"deploy", "stop"} {
		args := []string{"--sites", sites}
		if verb == "stop" {
			args = append(args, "--stop")
		}
		out, err := runDeployArgs(t, args...)
		if !strings.HasPrefix(out, verb+": 1 host from ") {
			t.Errorf("%s: output does not start with %q:\n%s", verb, verb+": 1 host from", out)
		}
		if err == nil || !errors.Is(err, deploy.ErrHostsFailed) {
			t.Fatalf("%s: error %v does not wrap ErrHostsFailed", verb, err)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "gridtui "+verb+": hosts failed: 1 of 1") || strings.Contains(msg, "deploy: deploy") || strings.Contains(msg, "\n") {
			t.Errorf("%s: message %q", verb, msg)
		}
	}
}

// TestDeployMissingSites checks the message when the inventory named by
// $GRIDTUI_SITES or --sites does not exist: each prefix once ("deploy:
// $GRIDTUI_SITES: deploy: open" read twice before), the path and the reason.
func TestDeployMissingSites(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nonexistent.toml")
	t.Setenv(inventory.SitesEnv, p)
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"env":   {nil, "deploy: $GRIDTUI_SITES: open " + p + ": no such file or directory"},
		"flag":  {[]string{"--sites", p}, "deploy: open " + p + ": no such file or directory"},
		"stop":  {[]string{"--stop"}, "deploy: $GRIDTUI_SITES: open " + p + ": no such file or directory"},
		"clean": {[]string{"--clean", "--sites", p}, "deploy: open " + p + ": no such file or directory"},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := runDeployArgs(t, tc.args...)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
			if out != "" {
				t.Errorf("printed before failing: %q", out)
			}
		})
	}
}

// TestDeployNoticeOnce checks that the line saying which inventory was
// used is printed once.
func TestDeployNoticeOnce(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sites.toml")
	doc := "[[site]]\nname = \"loc\"\nlauncher = \"local\"\n  [[site.cluster]]\n  name = \"a\"\n  nodes = 1\n  cores = 1\n" +
		"  ethernet_addr = \"127.16.64.200\"\n  fast_addr = \"127.18.64.200\"\n"
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(inventory.SitesEnv, p)
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	out, err := runDeployArgs(t)
	if err != nil {
		t.Fatalf("deploy: %v\n%s", err, out)
	}
	if n := strings.Count(out, "note: inventory "+p); n != 1 {
		t.Errorf("the inventory's notice is printed %d times, want once:\n%s", n, out)
	}
}

// TestDeployStartLeavesNothing checks deploy --start on a local site: every
// worker says hello with its pid, and none is left running afterwards.
func TestDeployStartLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sites.toml")
	doc := "[[site]]\nname = \"loc\"\nlauncher = \"local\"\n  [[site.cluster]]\n  name = \"a\"\n  nodes = 2\n  cores = 1\n" +
		"  ethernet_addr = \"127.16.64.210\"\n  fast_addr = \"127.18.64.210\"\n"
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	out, err := runDeployArgs(t, "--sites", p, "--start")
	if err != nil {
		t.Fatalf("deploy --start: %v\n%s", err, out)
	}
	var pids []int
	for _, l := range strings.Split(out, "\n") {
		var node string
		var pid int
		if n, _ := fmt.Sscanf(strings.TrimSpace(l), "%s pid %d on", &node, &pid); n == 2 {
			pids = append(pids, pid)
		}
	}
	if len(pids) != 2 {
		t.Fatalf("want two hellos with their pids:\n%s", out)
	}
	for _, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("worker pid %d still runs after deploy --start", pid)
		}
	}
}
