package deploy

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy/inventory"
)

func TestParseUname(t *testing.T) {
	tests := []struct {
		name, in, os, arch string
		wantErr            bool
	}{
		{name: "linux amd64", in: "Linux x86_64\n", os: "linux", arch: "amd64"},
		{name: "linux arm64", in: "Linux aarch64", os: "linux", arch: "arm64"},
		{name: "mac", in: "Darwin arm64", os: "darwin", arch: "arm64"},
		{name: "pi", in: "Linux armv7l", os: "linux", arch: "arm"},
		{name: "unknown machine", in: "Linux vax", wantErr: true},
		{name: "motd noise", in: "Welcome", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, a, err := parseUname(tc.in)
			if (err != nil) != tc.wantErr || o != tc.os || a != tc.arch {
				t.Fatalf("parseUname(%q) = %s %s %v", tc.in, o, a, err)
			}
		})
	}
}

func TestShQuoteSurvivesTheShell(t *testing.T) {
	for _, s := range []string{"plain", "with space", "it's", `a"b$c` + "`d`", "-n"} {
		out, err := exec.Command("sh", "-c", "printf %s "+shQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Fatalf("sh printed %q for %q (%v)", out, s, err)
		}
	}
}

func TestParseSum(t *testing.T) {
	good := strings.Repeat("ab", 32)
	if parseSum(good+"  work/gridtui\n") != good {
		t.Fatal("GNU sha256sum output not parsed")
	}
	for _, bad := range []string{"", "sha256sum: not found", strings.Repeat("g", 64)} {
		if parseSum(bad) != "" {
			t.Fatalf("parseSum(%q) accepted", bad)
		}
	}
}

func TestSelectHosts(t *testing.T) {
	inv := &inventory.Inventory{Source: "test.toml", Sites: []inventory.Site{
		{Name: "lyon", Clusters: []inventory.Cluster{{Name: "a", Hosts: []inventory.Host{{Name: "a1", Cluster: "a", Site: "lyon"}, {Name: "a2", Cluster: "a", Site: "lyon"}}}}},
		{Name: "nancy", Clusters: []inventory.Cluster{{Name: "b", Hosts: []inventory.Host{{Name: "b1", Cluster: "b", Site: "nancy"}}}}},
	}}
	tests := []struct {
		name  string
		names []string
		want  string
		err   bool
	}{
		{name: "all", want: "a1 a2 b1"},
		{name: "site", names: []string{"nancy"}, want: "b1"},
		{name: "cluster and host, inventory order, no duplicates", names: []string{"b1", "a", "a2"}, want: "a1 a2 b1"},
		{name: "unknown", names: []string{"zz"}, err: true},
		{name: "node set", names: []string{"a[1-2]"}, want: "a1 a2"},
		{name: "node set and cluster", names: []string{"b[1],a"}, want: "a1 a2 b1"},
		{name: "node set naming a missing host", names: []string{"a[1-3]"}, err: true},
		{name: "bad node set", names: []string{"a[2-1]"}, err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hs, err := inventory.SelectHosts(inv, tc.names)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v", err)
			}
			var got []string
			for _, h := range hs {
				got = append(got, h.Name)
			}
			if strings.Join(got, " ") != tc.want {
				t.Fatalf("got %v, want %s", got, tc.want)
			}
		})
	}
}

// FuzzRemoteOutput feeds arbitrary host output (uname, sha256sum) to their
// parsers: errors, never panics; what parses is sane.
func FuzzRemoteOutput(f *testing.F) {
	f.Add("Linux x86_64\n")
	f.Add(strings.Repeat("ab", 32) + "  work/gridtui\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, out string) {
		if o, a, err := parseUname(out); err == nil && (o == "" || a == "") {
			t.Fatalf("parseUname(%q) = %q %q without error", out, o, a)
		}
		if s := parseSum(out); s != "" && len(s) != 64 {
			t.Fatalf("parseSum(%q) = %q", out, s)
		}
	})
}
