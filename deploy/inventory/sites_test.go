package inventory

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/deploy/sched"
	"github.com/gridtui/gridtui/internal/tomlfile"
	"github.com/gridtui/gridtui/probe"
)

func readSites(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sites", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseBadFiles(t *testing.T) {
	tests := map[string]struct {
		file      string
		line, col int
		key       string
		msg       string
	}{
		"unknown key":        {"bad_unknown_key.toml", 9, 3, "site[0].cluster[0].corez", "unknown key"},
		"wrong type":         {"bad_wrong_type.toml", 7, 11, "site[0].cluster[0].cores", "got a TOML string, want an integer"},
		"syntax":             {"bad_syntax.toml", 1, 7, "", "expected ']]'"},
		"duplicate host":     {"bad_duplicate_host.toml", 10, 3, "site[0].cluster[1].hosts", `duplicate host "n3" (also in site[0].cluster[0].hosts[2])`},
		"bad range":          {"bad_range.toml", 6, 3, "site[0].cluster[0].hosts", `range "3-1" goes backwards`},
		"empty cluster":      {"bad_empty_cluster.toml", 4, 5, "site[0].cluster[0]", `empty cluster "c"`},
		"non-loopback local": {"bad_local_address.toml", 8, 3, "site[0].cluster[0].ethernet_addr", "10.1.64.10 is outside 127.0.0.0/8"},
		"local overflow":     {"bad_local_overflow.toml", 8, 3, "site[0].cluster[0].ethernet_addr", "128.0.0.0 is outside 127.0.0.0/8"},
		"cores zero":         {"bad_cores.toml", 7, 3, "site[0].cluster[0].cores", "cores must be at least 1"},
		"unknown launcher":   {"bad_launcher.toml", 3, 1, "site[0].launcher", `unknown launcher "lsf" (want ssh, local, oar, pbs, sge or slurm)`},
		"batch time limit":   {"bad_batch_time.toml", 8, 3, "site[0].batch.time_limit", `time_limit "forever" is not a positive duration`},
		"batch on ssh site":  {"bad_batch_ssh.toml", 4, 4, "site[0].batch", `[site.batch] is only for batch launchers`},
		"same nic":           {"bad_same_nic.toml", 10, 3, "site[0].cluster[0].fast", `fast = "eth0" names the Ethernet interface too`},
		"same nic per host":  {"bad_same_nic_host.toml", 14, 5, "site[0].cluster[0].host[0].fast", `fast = "eth0" names the Ethernet interface too`},
		"escape in a name":   {"bad_name_escape.toml", 2, 8, "site[0].name", `holds a control character (U+001B`},
		"bell in a host":     {"bad_host_bell.toml", 6, 17, "site[0].cluster[0].hosts[1]", `holds a control character (U+0007`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			inv, err := Parse(tt.file, readSites(t, tt.file))
			if err == nil {
				t.Fatalf("Parse accepted %s: %+v", tt.file, inv)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error is %T, want *ConfigError: %v", err, err)
			}
			if ce.File != tt.file || ce.Line != tt.line || ce.Col != tt.col || ce.Key != tt.key {
				t.Errorf("got %s:%d:%d key %q, want %s:%d:%d key %q", ce.File, ce.Line, ce.Col, ce.Key, tt.file, tt.line, tt.col, tt.key)
			}
			if !strings.Contains(ce.Msg, tt.msg) {
				t.Errorf("message %q does not contain %q", ce.Msg, tt.msg)
			}
			// The rendered error shows the offending line and a marker under the column.
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != 3 || !strings.HasSuffix(lines[2], "^") || strings.Index(lines[2], "^")-strings.Index(lines[2], "|")-2 != tt.col-1 {
				t.Errorf("rendered error lacks the context line and marker at col %d:\n%s", tt.col, err)
			}
		})
	}
}

func TestParseGoodFile(t *testing.T) {
	inv, err := Parse("good.toml", readSites(t, "good_two_sites.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, h := range inv.Hosts() {
		names = append(names, h.Name)
	}
	want := "graphene-1.nancy.example graphene-2.nancy.example graphene-3.nancy.example graphene-20.nancy.example " +
		"sagittaire-01.lyon.example sagittaire-02.lyon.example extra.lyon.example"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("hosts:\n got %s\nwant %s", got, want)
	}
	g20 := inv.Sites[0].Clusters[0].Hosts[3]
	if g20.Cores != 2 || g20.Fast != "ib1" || g20.Ethernet != "eth0" || g20.ProxyJump != "access.nancy.example" || g20.User != "alice" || g20.Port != 0 {
		t.Errorf("override not applied: %+v", g20)
	}
	lyon := inv.Sites[1].Clusters[0].Hosts[0]
	if lyon.Port != 2222 || lyon.ProxyJump != "" || lyon.Cores != 2 || lyon.Site != "lyon" || lyon.Cluster != "sagittaire" {
		t.Errorf("site settings not applied: %+v", lyon)
	}
	if inv.Defaults.ConnectTimeout != 5*time.Second || inv.Locality.Rule != probe.RuleOctet || inv.Sites[0].Launcher != LauncherSSH {
		t.Errorf("defaults: %+v locality %q launcher %q", inv.Defaults, inv.Locality.Rule, inv.Sites[0].Launcher)
	}
}

func TestExampleSitesFile(t *testing.T) {
	inv, err := Load(filepath.Join("..", "..", "sites.toml"))
	if err != nil {
		t.Fatal(err)
	}
	hosts := inv.Hosts()
	if len(hosts) != 17+8 {
		t.Fatalf("example inventory has %d hosts, want 25", len(hosts))
	}
	if hosts[16].Name != "graphene-20.nancy.grid.example" || hosts[16].Cores != 2 {
		t.Errorf("17th host is %+v", hosts[16])
	}
}

func TestEmbeddedLocalGrid(t *testing.T) {
	inv := Embedded()
	if inv.Source != EmbeddedSource || len(inv.Sites) != 1 || inv.Sites[0].Launcher != LauncherLocal {
		t.Fatalf("embedded inventory: %+v", inv)
	}
	want := []struct{ name, eth, fast string }{
		{"alpha-1", "127.16.64.10", "127.18.64.10"}, {"alpha-2", "127.16.64.11", "127.18.64.11"},
		{"alpha-3", "127.16.64.12", "127.18.64.12"}, {"alpha-4", "127.16.64.13", "127.18.64.13"},
		{"beta-1", "127.16.34.20", "127.18.34.20"}, {"beta-2", "127.16.34.21", "127.18.34.21"},
		{"beta-3", "127.16.34.22", "127.18.34.22"}, {"beta-4", "127.16.34.23", "127.18.34.23"},
	}
	hosts := inv.Hosts()
	if len(hosts) != len(want) {
		t.Fatalf("%d hosts, want %d", len(hosts), len(want))
	}
	for i, w := range want {
		h := hosts[i]
		if h.Name != w.name || h.EthernetAddr.String() != w.eth || h.FastAddr.String() != w.fast || h.Cores != 1 {
			t.Errorf("host %d = %s %s %s cores %d, want %+v", i, h.Name, h.EthernetAddr, h.FastAddr, h.Cores, w)
		}
	}
}

func TestLoadPrefersWorkingDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	inv, err := Load("")
	if err != nil || inv.Source != EmbeddedSource {
		t.Fatalf("no sites.toml: got %v, %v; want the embedded grid", inv, err)
	}
	data := []byte("[[site]]\nname = \"x\"\n[[site.cluster]]\nname = \"c\"\nhosts = \"h[1-2]\"\n")
	if err := os.WriteFile(filepath.Join(dir, DefaultSitesFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	inv, err = Load("")
	if err != nil || inv.Source != DefaultSitesFile || len(inv.Hosts()) != 2 {
		t.Fatalf("with sites.toml: got %+v, %v", inv, err)
	}
	if _, err := Load(filepath.Join(dir, "missing.toml")); err == nil || !strings.Contains(err.Error(), "missing.toml") {
		t.Errorf("missing file: error %v does not name the file", err)
	}
}

func TestExpandNodeSet(t *testing.T) {
	tests := map[string]struct {
		in   string
		want string
		err  bool
	}{
		"plain":        {in: "host", want: "host"},
		"range":        {in: "n[1-3]", want: "n1 n2 n3"},
		"list":         {in: "graphene-[1-2,20].nancy", want: "graphene-1.nancy graphene-2.nancy graphene-20.nancy"},
		"padding":      {in: "n[08-10]", want: "n08 n09 n10"},
		"two brackets": {in: "r[1-2]n[1-2]", want: "r1n1 r1n2 r2n1 r2n2"},
		"top commas":   {in: "a[1-2],b", want: "a1 a2 b"},
		"backwards":    {in: "n[3-1]", err: true},
		"unclosed":     {in: "n[1-3", err: true},
		"stray close":  {in: "n1-3]", err: true},
		"empty":        {in: "n[]", err: true},
		"letters":      {in: "n[a-c]", err: true},
		"huge":         {in: "n[1-99999999]", err: true},
		"empty name":   {in: "a,,b", err: true},
		"nested":       {in: "n[1[2]]", err: true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := sched.ExpandNodeSet(tt.in)
			if tt.err {
				if err == nil || !errors.Is(err, sched.ErrNodeSet) {
					t.Fatalf("ExpandNodeSet(%q) = %v, %v; want an ErrNodeSet", tt.in, got, err)
				}
				return
			}
			if err != nil || strings.Join(got, " ") != tt.want {
				t.Fatalf("ExpandNodeSet(%q) = %v, %v; want %s", tt.in, got, err, tt.want)
			}
		})
	}
}

// FuzzParse feeds arbitrary bytes to the inventory parser: it must return a
// valid inventory or a *ConfigError, never panic.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"good_two_sites.toml", "bad_unknown_key.toml", "bad_wrong_type.toml", "bad_range.toml", "bad_local_address.toml"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sites", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add(embeddedSites)
	f.Add([]byte("[[site]]\nname = \"s\"\nlauncher = \"\x1b]0;t\x07\"\n"))
	f.Add([]byte("[[site]]\nname = \"s\"\n  [[site.cluster]]\n  name = \"c\"\n  hosts = [\"h\u009b\", \"h\u009b\"]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		inv, err := Parse("fuzz.toml", data)
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error is %T, not a *ConfigError: %v", err, err)
			}
			if msg := err.Error(); tomlfile.QuoteMessage(msg) != msg {
				t.Fatalf("error carries control characters: %q", msg)
			}
			return
		}
		if len(inv.Sites) == 0 || len(inv.Hosts()) == 0 {
			t.Fatalf("valid inventory without hosts: %+v", inv)
		}
		for _, h := range inv.Hosts() {
			if h.Name == "" || h.Cores < 0 {
				t.Fatalf("invalid host accepted: %+v", h)
			}
		}
	})
}

func TestLoadSkipsExampleInventory(t *testing.T) {
	example, err := os.ReadFile(filepath.Join("..", "..", "sites.toml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile(DefaultSitesFile, example, 0o644); err != nil {
		t.Fatal(err)
	}
	inv, err := Load("")
	if err != nil || inv.Source != EmbeddedSource || !strings.Contains(inv.Notice, "example") {
		t.Fatalf("Load(\"\") with the example in the working directory: %+v, %v; want the embedded grid and a notice", inv, err)
	}
	inv, err = Load(DefaultSitesFile)
	if err != nil || inv.Source != DefaultSitesFile || !inv.Example || len(inv.Hosts()) != 25 {
		t.Fatalf("explicit path must load the example itself: %+v, %v", inv, err)
	}
}

func TestParseSlurmSite(t *testing.T) {
	inv, err := Parse("good_slurm.toml", readSites(t, "good_slurm.toml"))
	if err != nil {
		t.Fatal(err)
	}
	s := inv.Sites[0]
	want := sched.BatchOptions{Partition: "compute", Account: "proj42", TimeLimit: 2 * time.Hour, Options: []string{"--qos=short", "--exclusive"}}
	if s.Launcher != "slurm" || s.Frontend != "login.hpc.example" || !reflect.DeepEqual(s.Batch, want) {
		t.Errorf("site = %+v, want launcher slurm, the frontend and %+v", s, want)
	}
	if n := len(inv.Hosts()); n != 4 {
		t.Errorf("%d hosts, want node[1-4]", n)
	}
}
