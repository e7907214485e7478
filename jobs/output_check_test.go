package jobs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOutputCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "taken")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o555); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		out  Output
		want string // "" = accepted
	}{
		"nothing written":   {Output{Dir: file}, ""},
		"new directory":     {Output{Dir: filepath.Join(dir, "a", "b"), VTI: true}, ""},
		"a file":            {Output{Dir: file, VTI: true}, "is a file"},
		"under a file":      {Output{Dir: filepath.Join(file, "sub"), Raw: true}, "taken"},
		"without write bit": {Output{Dir: locked, VTI: true}, "not writable"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if name == "without write bit" && os.Geteuid() == 0 {
				t.Skip("root writes anywhere")
			}
			err := tc.out.Check()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Check = %v", err)
			case tc.want != "" && (err == nil || !errors.Is(err, ErrOutput) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Check = %v, want an ErrOutput with %q", err, tc.want)
			}
		})
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "a", "b")); len(entries) != 0 {
		t.Errorf("Check left %d files behind", len(entries))
	}
}
