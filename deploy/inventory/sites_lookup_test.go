package inventory

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadLookup checks where Load finds the inventory when no path is
// given: $GRIDTUI_SITES, then ./sites.toml (unless an example), then
// $XDG_CONFIG_HOME/gridtui/sites.toml, then the embedded grid; and that the
// notice says which file was used and why.
func TestLoadLookup(t *testing.T) {
	site := func(name string) string {
		return "[[site]]\nname = \"" + name + "\"\nlauncher = \"local\"\n  [[site.cluster]]\n  name = \"c\"\n  nodes = 1\n  ethernet_addr = \"127.16.64.10\"\n"
	}
	tests := map[string]struct {
		env, cwd, xdg string // inventories ("" none, "example" an example)
		wantSite      string // the site loaded ("local" for the embedded grid)
		wantNotice    string
	}{
		"embedded":         {wantSite: "local"},
		"cwd":              {cwd: "here", xdg: "there", wantSite: "here"},
		"xdg":              {xdg: "there", wantSite: "there", wantNotice: "gridtui/sites.toml (no ./sites.toml here)"},
		"cwd example, xdg": {cwd: "example", xdg: "there", wantSite: "there", wantNotice: "./sites.toml is an example"},
		"xdg example":      {xdg: "example", wantSite: "local", wantNotice: "is an example"},
		"env":              {env: "env", cwd: "here", xdg: "there", wantSite: "env", wantNotice: "$GRIDTUI_SITES"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cwd, cfg, other := t.TempDir(), t.TempDir(), t.TempDir()
			t.Chdir(cwd)
			t.Setenv("XDG_CONFIG_HOME", cfg)
			t.Setenv(SitesEnv, "")
			write := func(path, what string) {
				if what == "" {
					return
				}
				body := site(what)
				if what == "example" {
					body = "example = true\n" + site("ex")
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(filepath.Join(cwd, "sites.toml"), tc.cwd)
			write(filepath.Join(cfg, "gridtui", "sites.toml"), tc.xdg)
			if tc.env != "" {
				p := filepath.Join(other, "mine.toml")
				write(p, tc.env)
				t.Setenv(SitesEnv, p)
			}
			inv, err := Load("")
			if err != nil {
				t.Fatal(err)
			}
			if got := inv.Sites[0].Name; got != tc.wantSite {
				t.Errorf("loaded site %s from %s, want %s", got, inv.Source, tc.wantSite)
			}
			if !strings.Contains(inv.Notice, tc.wantNotice) || (tc.wantNotice == "" && inv.Notice != "") {
				t.Errorf("notice %q, want %q", inv.Notice, tc.wantNotice)
			}
		})
	}
	// Each prefix once: the package's, then how the file was chosen.
	t.Run("env missing", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "nope.toml")
		t.Setenv(SitesEnv, p)
		want := "deploy: $GRIDTUI_SITES: open " + p + ": no such file or directory"
		if _, err := Load(""); err == nil || err.Error() != want || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Load with $%s naming no file: %v, want %q", SitesEnv, err, want)
		}
		want = "deploy: open " + p + ": no such file or directory"
		if _, err := Load(p); err == nil || err.Error() != want {
			t.Errorf("Load(%s): %v, want %q", p, err, want)
		}
	})
	t.Run("env invalid", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "bad.toml")
		os.WriteFile(p, []byte("[[site]]\nname = 3\n"), 0o600)
		t.Setenv(SitesEnv, p)
		_, err := Load("")
		var ce *ConfigError
		if err == nil || !strings.HasPrefix(err.Error(), "deploy: $GRIDTUI_SITES: "+p+":2:") || !errors.As(err, &ce) {
			t.Errorf("Load with $%s naming an invalid file: %v, want the file:line:col after one prefix", SitesEnv, err)
		}
	})
}
