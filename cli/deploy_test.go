package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy"
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
