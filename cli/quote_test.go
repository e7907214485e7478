package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unicode"
)

// TestErrorsQuoteControl feeds job, sites and matrix files carrying terminal
// escape sequences (window title, clear screen, CSI) to the commands that
// read them and checks that the error, which echoes the offending line and
// values, reaches the terminal with every control character quoted.
func TestErrorsQuoteControl(t *testing.T) {
	const (
		title = "\x1b]0;pwned\x07"
		clear = "\x1b[2J\x1b[H"
		csi   = "\u009b31m"
	)
	site := "[[site]]\nname = \"s\"\nlauncher = \"local\"\n  [[site.cluster]]\n  name = \"c\"\n  nodes = 1\n  ethernet_addr = \"127.16.64.10\"\n"
	tests := map[string]struct {
		cmd  string // the flag that takes the file
		args []string
		file string
	}{
		"job bad scheme":    {"--job", []string{"run"}, "scheme = \"sync" + title + "\"\n"},
		"job unknown key":   {"--job", []string{"run"}, "sch" + clear + "eme = \"sync\"\n"},
		"job wrong type":    {"--job", []string{"run"}, "[obstacle]\nn = \"" + csi + "\"\n"},
		"job syntax":        {"--job", []string{"run"}, "scheme = \"sync\" " + clear + "\n"},
		"job cluster":       {"--job", []string{"run"}, "[nodes]\nclusters = [\"al" + title + "pha\"]\n"},
		"sites launcher":    {"--sites", []string{"sites"}, "[[site]]\nname = \"s\"\nlauncher = \"" + title + "\"\n"},
		"sites unknown key": {"--sites", []string{"sites"}, site + "  co" + clear + "res = 2\n"},
		"sites host":        {"--sites", []string{"sites"}, "[[site]]\nname = \"s\"\n  [[site.cluster]]\n  name = \"c\"\n  hosts = \"h" + title + "[1-2\"\n"},
		"sites duplicate":   {"--sites", []string{"sites"}, "[[site]]\nname = \"s\"\n  [[site.cluster]]\n  name = \"c\"\n  hosts = [\"h" + csi + "\", \"h" + csi + "\"]\n"},
		"matrix scheme":     {"--matrix", []string{"bench", "study", "--dry-run"}, "name = \"q\"\nsizes = [8]\nschemes = [\"" + clear + "\"]\n"},
		"matrix syntax":     {"--matrix", []string{"bench", "study", "--dry-run"}, "name = " + title + "\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "bad.toml")
			if err := os.WriteFile(p, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			root := newRootCmd()
			root.SetOut(&out)
			root.SetErr(&out)
			root.SetArgs(append(tc.args, tc.cmd, p))
			err := root.Execute()
			if err == nil {
				t.Fatalf("%s accepted:\n%s", tc.file, out.String())
			}
			text := out.String() + err.Error()
			for _, r := range text {
				if r != '\n' && (unicode.IsControl(r) || r == 0xfffd) {
					t.Fatalf("output carries %U:\n%q", r, text)
				}
			}
		})
	}
}
