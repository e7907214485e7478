package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestAppsListing: `gridtui apps` shows integer ranges as they are typed
// and an empty default as none, never "default ," or 1e+08.
func TestAppsListing(t *testing.T) {
	var out bytes.Buffer
	root := newRootCmd()
	root.SetOut(&out)
	root.SetArgs([]string{"apps"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			lines[f[0]] = l // the last application's line for a shared name
		}
	}
	for name, want := range map[string]string{
		"program": "string, default none, any string",
		"items":   "int, default 1, 1…100000000",
		"matrix":  "string, default none, any string",
	} {
		if !strings.Contains(lines[name], want) {
			t.Errorf("apps: %s line %q lacks %q", name, lines[name], want)
		}
	}
	if s := out.String(); strings.Contains(s, "e+0") || strings.Contains(s, "default ,") {
		t.Errorf("apps prints a range in e-notation or an empty default:\n%s", s)
	}
}
