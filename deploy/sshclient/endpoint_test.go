package sshclient

import (
	"context"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy/inventory"
)

func TestParseHopAndEndpoint(t *testing.T) {
	tests := []struct {
		name, jump string
		want       []string // hop endpoints, outermost first
		wantErr    bool
	}{
		{name: "none", jump: "none"},
		{name: "plain", jump: "front", want: []string{"local@front:22"}},
		{name: "user and port", jump: "bob@front.site:2222", want: []string{"bob@front.site:2222"}},
		{name: "chain", jump: "a@gw1, gw2:23", want: []string{"a@gw1:22", "local@gw2:23"}},
		{name: "ipv6", jump: "[::1]:2200", want: []string{"local@[::1]:2200"}},
		{name: "bad port", jump: "gw:99999", wantErr: true},
		{name: "empty hop", jump: "gw,,x", wantErr: true},
	}
	// A jump host's user is its own (here the local user), not the target's.
	t.Setenv("USER", "local")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := hostEndpoint(context.Background(), SSHFiles{}, inventory.Host{Name: "node", User: "me", ProxyJump: tc.jump})
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v", err)
			}
			var got []string
			for _, v := range e.via {
				got = append(got, v.String())
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("hops %v, want %v", got, tc.want)
			}
		})
	}
}

// FuzzSSHOutput feeds arbitrary ProxyJump values and ssh -G output to
// their parsers: errors, never panics; what parses is sane.
func FuzzSSHOutput(f *testing.F) {
	f.Add("Linux x86_64\n", "gw1,bob@gw2:2222")
	f.Add(strings.Repeat("ab", 32)+"  work/gridtui\n", "[::1]:22")
	f.Add("", "@:")
	f.Add("hostname 10.0.0.1\nport 2222\nidentityfile ~/.ssh/id\nconnecttimeout none\nstricthostkeychecking true\n", "ssh://a@b:1")
	f.Fuzz(func(t *testing.T, out, jump string) {
		if hc, err := parseSSHG([]byte(out)); err == nil && (hc.HostName == "" || hc.Port < 0 || hc.Port > 65535) {
			t.Fatalf("parseSSHG(%q) = %+v without error", out, hc)
		}
		e, err := hostEndpoint(context.Background(), SSHFiles{}, inventory.Host{Name: "n", ProxyJump: jump})
		if err == nil {
			for _, v := range e.via {
				if v.host == "" || v.port <= 0 || v.port > 65535 {
					t.Fatalf("hop %+v from %q", v, jump)
				}
			}
		}
	})
}
