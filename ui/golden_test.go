package ui

import (
	"context"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/probe"
)

// updating reports the -update flag (defined by x/exp/golden, which
// teatest imports): rewrite the golden files under testdata/.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// sizes are the terminal sizes every view is checked at.
var sizes = []struct{ w, h int }{{80, 24}, {160, 48}}

// requireGolden compares the ANSI-stripped rendering with
// testdata/<Test>/<case>.golden (rewritten with -update).
func requireGolden(t *testing.T, got string) {
	t.Helper()
	got = normalize(got)
	path := filepath.Join("testdata", filepath.FromSlash(t.Name())+".golden")
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file %s: %v (run go test ./ui -update)", path, err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the rendering (run with -update if intended)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// normalize strips ANSI and trailing blanks, keeping one line per row.
func normalize(s string) string {
	lines := strings.Split(ansi.Strip(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// checkSize asserts the rendering fits the body area exactly.
func checkSize(t *testing.T, c *Common, out string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) != c.bodyHeight() {
		t.Errorf("rendered %d lines, want the body height %d", len(lines), c.bodyHeight())
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > c.Width {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i, w, c.Width, ansi.Strip(l))
		}
	}
}

func testCommon(w, h int) *Common { return NewCommon(context.Background(), w, h, nil) }

// bigInventory is a two-site inventory of n local hosts in clusters of 64.
func bigInventory(n int) *inventory.Inventory {
	inv := &inventory.Inventory{Source: "test-1024", Locality: probe.Locality{Rule: probe.RuleOctet}}
	for s := 0; s < 2; s++ {
		site := inventory.Site{Name: fmt.Sprintf("site%d", s+1), Launcher: inventory.LauncherLocal}
		for c := 0; c < n/128; c++ {
			cl := inventory.Cluster{Name: fmt.Sprintf("c%d", s*8+c), Cores: 2}
			for h := 0; h < 64; h++ {
				third := 10 + s*8 + c
				cl.Hosts = append(cl.Hosts, inventory.Host{
					Name: fmt.Sprintf("%s-%d", cl.Name, h+1), Site: site.Name, Cluster: cl.Name, Cores: 2,
					EthernetAddr: netip.AddrFrom4([4]byte{127, 16, byte(third), byte(10 + h)}),
					FastAddr:     netip.AddrFrom4([4]byte{127, 18, byte(third), byte(10 + h)}),
				})
			}
			site.Clusters = append(site.Clusters, cl)
		}
		inv.Sites = append(inv.Sites, site)
	}
	return inv
}

func ansiStrip(s string) string { return ansi.Strip(s) }
