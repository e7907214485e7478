package ui

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/deploy/inventory"
)

func TestSitesView(t *testing.T) {
	cases := []struct {
		name  string
		inv   *inventory.Inventory
		err   error
		setup func(v *SitesView)
	}{
		{name: "local", inv: inventory.Embedded()},
		{name: "deploying", inv: inventory.Embedded(), setup: func(v *SitesView) {
			v.SetHostState("alpha-1", HostState{Phase: "upload", Progress: 0.42, Worker: WorkerDown, Load: 0.5})
			v.SetHostState("alpha-2", HostState{Phase: "ready", Worker: WorkerUp, Load: 0.5})
			v.SetHostState("alpha-3", HostState{Phase: "failed", Err: "deploy: alpha-3: connection refused", Load: -1})
			v.SetHostState("beta-1", HostState{Phase: "ready", Worker: WorkerBusy, Load: 1.25})
			v.SetHostState("beta-2", HostState{Phase: "connect", Fingerprint: "SHA256:abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG", Load: -1})
			v.list.cursor = 4 // alpha-3: its error shows under the list
		}},
		{name: "empty", inv: &inventory.Inventory{Source: "sites.toml"}},
		{name: "error", err: errors.New(`deploy: sites.toml:3:7: unknown key "nodez" in [[site.cluster]]`)},
		{name: "1024", inv: bigInventory(1024), setup: func(v *SitesView) {
			v.SetHostState("c9-3", HostState{Phase: "upload", Progress: 0.9, Load: -1})
		}},
		{name: "1024_folded", inv: bigInventory(1024), setup: func(v *SitesView) {
			*v, _ = v.Update(keyPress("down")) // cluster c0
			*v, _ = v.Update(keyPress("enter"))
			v.list.cursor = 2 // c1 (after site1 and the folded c0)
			*v, _ = v.Update(keyPress("space"))
		}},
	}
	for _, tc := range cases {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, sz.w, sz.h), func(t *testing.T) {
				c := testCommon(sz.w, sz.h)
				v := NewSitesView(c, tc.inv, tc.err)
				if tc.setup != nil {
					tc.setup(&v)
				}
				out := v.View()
				checkSize(t, c, out)
				requireGolden(t, out)
			})
		}
	}
}

func TestSitesActions(t *testing.T) {
	c := testCommon(80, 24)
	v := NewSitesView(c, inventory.Embedded(), nil)
	press := func(k string) tea.Msg {
		var cmd tea.Cmd
		v, cmd = v.Update(keyPress(k))
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
func keyPress(k string) tea.KeyPressMsg {
	switch k {
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "ctrl+s":
		return tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl}
	case "ctrl+o":
		return tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+u":
		return tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown", "pgdn":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

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
	for _, sz := range sizes {
		c := testCommon(sz.w, sz.h)
		lines := strings.Split(ansiStrip(NewSitesView(c, nil, err).View()), "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight(l, " ")
		}
		out := strings.Join(lines, "\n")
		if !strings.Contains(out, src+"\n"+mark) {
			t.Errorf("%dx%d: the excerpt lost its alignment; want\n%s\n%s\ngot\n%s", sz.w, sz.h, src, mark, out)
		}
	}
	// A long line is still wrapped to the width.
	for _, l := range strings.Split(wrap(strings.Repeat("word ", 40), 30), "\n") {
		if cellWidth(l) > 30 {
			t.Errorf("wrapped line %q is wider than 30", l)
		}
	}
}
