package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/study"
)

func TestBenchStudyDryRun(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(bad, []byte("sizes = [48]\nnodes = [2]\nschemes = [\"fast\"]\n[[grid]]\nclusters = [\"alpha\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	alphaOnly := filepath.Join(t.TempDir(), "sites.toml")
	inv := "locality = \"octet\"\n[[site]]\nname = \"local\"\nlauncher = \"local\"\n  [[site.cluster]]\n  name = \"alpha\"\n" +
		"  nodes = 4\n  cores = 1\n  ethernet_addr = \"127.16.64.10\"\n  fast_addr = \"127.18.64.10\"\n"
	if err := os.WriteFile(alphaOnly, []byte(inv), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
		err  error
	}{
		{"default", []string{"bench", "study", "--dry-run"}, "56 runs, 2 skipped", nil},
		{"quick file", []string{"bench", "study", "--dry-run", "--matrix", "../testdata/study/quick.toml"}, "56 runs, 2 skipped", nil},
		{"bad matrix", []string{"bench", "study", "--dry-run", "--matrix", bad}, "", study.ErrMatrix},
		{"unknown cluster", []string{"bench", "study", "--dry-run", "--sites", alphaOnly}, "", study.ErrInventory},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := newRootCmd()
			var out bytes.Buffer
			root.SetOut(&out)
			root.SetErr(&out)
			root.SetArgs(tt.args)
			err := root.ExecuteContext(context.Background())
			switch {
			case tt.err == study.ErrInventory:
				if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), `"beta"`) {
					t.Fatalf("err = %v, want %v naming beta", err, tt.err)
				}
			case tt.err != nil:
				if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), "bad.toml:3:1") {
					t.Fatalf("err = %v, want %v at bad.toml:3:1", err, tt.err)
				}
			case err != nil:
				t.Fatal(err)
			case !strings.Contains(out.String(), tt.want) || !strings.Contains(out.String(), "quick-n64-alpha_beta-8x1-hybrid"):
				t.Errorf("output lacks %q or the last run:\n%s", tt.want, out.String())
			}
		})
	}
}
