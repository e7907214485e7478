package sites

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/ui/common"
	"github.com/gridtui/gridtui/ui/internal/uitest"
	"github.com/gridtui/gridtui/ui/widget/text"
)

func TestSitesView(t *testing.T) {
	cases := []struct {
		name  string
		inv   *inventory.Inventory
		err   error
		setup func(v *Model)
	}{
		{name: "local", inv: inventory.Embedded()},
		{name: "deploying", inv: inventory.Embedded(), setup: func(v *Model) {
			v.SetHostState("alpha-1", HostState{Phase: "upload", Progress: 0.42, Worker: WorkerDown, Load: 0.5})
			v.SetHostState("alpha-2", HostState{Phase: "ready", Worker: WorkerUp, Load: 0.5})
			v.SetHostState("alpha-3", HostState{Phase: "failed", Err: "deploy: alpha-3: connection refused", Load: -1})
			v.SetHostState("beta-1", HostState{Phase: "ready", Worker: WorkerBusy, Load: 1.25})
			v.SetHostState("beta-2", HostState{Phase: "connect", Fingerprint: "SHA256:abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG", Load: -1})
			v.list.SetCursor(4) // alpha-3: its error shows under the list
		}},
		// A run of cluster alpha is live: J on beta-2 asked it to join.
		{name: "joining", inv: inventory.Embedded(), setup: func(v *Model) {
			liveAlpha(v)
			v.SetHostState("beta-2", HostState{Phase: "connect", Joining: true, Load: -1})
			v.list.SetCursor(8) // beta-2: "joining…" under the list
		}},
		{name: "joined", inv: inventory.Embedded(), setup: func(v *Model) {
			liveAlpha(v)
			v.SetHostState("beta-2", HostState{Phase: "ready", Worker: WorkerSpare, Load: 0.5,
				Detail: "tcp://127.16.34.20:41413 ctrl+tcp://127.16.34.20:42453"})
			v.list.SetCursor(8)
		}},
		{name: "join_refused", inv: inventory.Embedded(), setup: func(v *Model) {
			liveAlpha(v)
			v.SetHostState("beta-2", HostState{Phase: "failed", Load: -1,
				JoinErr: "engine: cannot join beta-2: its worker did not start: deploy: beta-2: exec: no such file"})
			v.list.SetCursor(8)
		}},
		{name: "empty", inv: &inventory.Inventory{Source: "sites.toml"}},
		{name: "error", err: errors.New(`deploy: sites.toml:3:7: unknown key "nodez" in [[site.cluster]]`)},
		{name: "1024", inv: uitest.BigInventory(1024), setup: func(v *Model) {
			v.SetHostState("c9-3", HostState{Phase: "upload", Progress: 0.9, Load: -1})
		}},
		{name: "1024_folded", inv: uitest.BigInventory(1024), setup: func(v *Model) {
			*v, _ = v.update(uitest.KeyPress("down")) // cluster c0
			*v, _ = v.update(uitest.KeyPress("enter"))
			v.list.SetCursor(2) // c1 (after site1 and the folded c0)
			*v, _ = v.update(uitest.KeyPress("space"))
		}},
	}
	for _, tc := range cases {
		for _, sz := range uitest.Sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, sz.W, sz.H), func(t *testing.T) {
				c := uitest.Common(sz.W, sz.H)
				v := New(c, tc.inv, tc.err)
				if tc.setup != nil {
					tc.setup(&v)
				}
				out := v.View()
				uitest.CheckSize(t, c, out)
				uitest.RequireGolden(t, out)
			})
		}
	}
}

// liveAlpha shows a live run on cluster alpha's hosts.
func liveAlpha(v *Model) {
	v.SetLive(true)
	for _, h := range []string{"alpha-1", "alpha-2", "alpha-3", "alpha-4"} {
		v.SetHostState(h, HostState{Phase: "ready", Worker: WorkerBusy, Load: 0.5})
	}
}

// TestSitesJoinKey: J asks to join the selected host to the live run, and
// only a host that can join: a live run, a host with no part, not a spare,
// not joining; the help line shows it only then.
func TestSitesJoinKey(t *testing.T) {
	c := uitest.Common(160, 48)
	v := New(c, inventory.Embedded(), nil)
	press := func(k string) tea.Msg {
		var cmd tea.Cmd
		v, cmd = v.update(uitest.KeyPress(k))
		if cmd == nil {
			return nil
		}
		return cmd()
	}
	shown := func() bool {
		for _, b := range v.keyMap().ShortHelp() {
			if b.Enabled() && b.Help().Key == "J" {
				return true
			}
		}
		return false
	}
	v.list.SetCursor(8) // beta-2
	if m := press("J"); m != nil || shown() {
		t.Fatalf("J with no live run = %#v (shown %v), want nothing", m, shown())
	}
	liveAlpha(&v)
	if m, ok := press("J").(JoinRequestMsg); !ok || m.Host != "beta-2" || !shown() {
		t.Fatalf("J on beta-2 of a live run = %#v (shown %v), want a join of beta-2", m, shown())
	}
	for _, tc := range []struct {
		cursor int
		st     HostState
		why    string
	}{
		{2, HostState{Worker: WorkerBusy}, "alpha-1 holds a part"},
		{8, HostState{Worker: WorkerSpare}, "beta-2 is a spare"},
		{8, HostState{Joining: true}, "beta-2 is joining"},
		{6, HostState{}, "a cluster row"},
	} {
		v.list.SetCursor(tc.cursor)
		if r, _ := v.list.Selected(); r.Leaf {
			v.SetHostState(strings.TrimPrefix(r.Key, "host/"), tc.st)
		}
		if m := press("J"); m != nil || shown() {
			t.Errorf("J when %s = %#v (shown %v), want nothing", tc.why, m, shown())
		}
	}
}

func TestSitesActions(t *testing.T) {
	c := uitest.Common(80, 24)
	v := New(c, inventory.Embedded(), nil)
	press := func(k string) tea.Msg {
		var cmd tea.Cmd
		v, cmd = v.update(uitest.KeyPress(k))
		if cmd == nil {
			return nil
		}
		return cmd()
	}
	// The cursor starts on the site: deploying it means every host.
	if m, ok := press("d").(DeployRequestMsg); !ok || len(m.Hosts) != 8 {
		t.Fatalf("d on the site = %#v, want a deploy of 8 hosts", m)
	}
	press("down") // cluster alpha
	if m, ok := press("d").(DeployRequestMsg); !ok || len(m.Hosts) != 4 || m.Hosts[0].Cluster != "alpha" {
		t.Fatalf("d on cluster alpha = %#v, want its 4 hosts", m)
	}
	press("down") // alpha-1
	if m, ok := press("x").(StopRequestMsg); !ok || len(m.Hosts) != 1 || m.Hosts[0].Name != "alpha-1" {
		t.Fatalf("x on alpha-1 = %#v, want a stop of alpha-1", m)
	}
	if _, ok := press("p").(ProbeRequestMsg); !ok {
		t.Fatal("p did not request a probe")
	}
	if m := press("a"); m != nil {
		t.Fatalf("a with no pending key = %#v, want nothing", m)
	}
	v.SetHostState("alpha-1", HostState{Fingerprint: "SHA256:xyz", Load: -1})
	if m, ok := press("a").(AcceptKeyMsg); !ok || m.Fingerprint != "SHA256:xyz" {
		t.Fatalf("a on a pending key = %#v", m)
	}
}

// keyPress builds the key message the terminal would send for k.

// TestSitesLoadErrorKeepsExcerpt: the inventory error's excerpt keeps its
// alignment on screen, so the marker points at the offending column.
func TestSitesLoadErrorKeepsExcerpt(t *testing.T) {
	_, err := inventory.Parse("sites.toml", []byte("[[site]]\nname = \"s\"\n  [[site.cluster]]\n  name = \"c\"\n  hosts = \"n1\"\n  cores = \"four\"\n"))
	if err == nil {
		t.Fatal("parse accepted a string for cores")
	}
	var src, mark string
	for _, l := range strings.Split(err.Error(), "\n") {
		switch {
		case strings.Contains(l, `cores = "four"`):
			src = l
		case strings.HasSuffix(l, "^"):
			mark = l
		}
	}
	if src == "" || mark == "" {
		t.Fatalf("the parser's error has no excerpt: %q", err)
	}
	for _, sz := range uitest.Sizes {
		c := uitest.Common(sz.W, sz.H)
		lines := strings.Split(ansi.Strip(New(c, nil, err).View()), "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight(l, " ")
		}
		out := strings.Join(lines, "\n")
		if !strings.Contains(out, src+"\n"+mark) {
			t.Errorf("%dx%d: the excerpt lost its alignment; want\n%s\n%s\ngot\n%s", sz.W, sz.H, src, mark, out)
		}
	}
	// A long line is still wrapped to the width.
	for _, l := range strings.Split(wrap(strings.Repeat("word ", 40), 30), "\n") {
		if text.Width(l) > 30 {
			t.Errorf("wrapped line %q is wider than 30", l)
		}
	}
}

// TestSitesLoadFitsItsColumn: a shared host's load in the hundreds is shown
// whole ("630"), never cut ("630.…"), at either width.
func TestSitesLoadFitsItsColumn(t *testing.T) {
	for _, tc := range []struct {
		load float64
		want string
	}{{-1, "–"}, {0.5, "0.50"}, {9.999, "10.0"}, {63.04, "63.0"}, {630.12, "630"}, {99999.4, "99999"}, {1e6, "≫1e5"}} {
		if got := loadCell(tc.load); got != tc.want || text.Width(got) > 5 {
			t.Errorf("loadCell(%g) = %q, want %q (5 cells at most)", tc.load, got, tc.want)
		}
	}
	for _, w := range []int{80, 160} {
		c := common.NewCommon(nil, w, 24, nil)
		v := New(c, inventory.Embedded(), nil)
		v.SetHostState("alpha-1", HostState{Phase: "ready", Worker: WorkerUp, Load: 630.12})
		view := ansi.Strip(v.View())
		if strings.Contains(view, "630.…") || !strings.Contains(view, " 630") {
			t.Errorf("%d columns: the load 630.12 is not shown whole:\n%s", w, view)
		}
	}
}
