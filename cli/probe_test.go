package cli

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/probe"
)

func runGridtui(t *testing.T, args ...string) []byte {
	t.Helper()
	var out bytes.Buffer
	root := newRootCmd()
	root.SetOut(&out)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		t.Fatalf("gridtui %v: %v", args, err)
	}
	return out.Bytes()
}

func TestProbeJSONRoundTrips(t *testing.T) {
	out := runGridtui(t, "probe", "--json")
	var nics []probe.NIC
	if err := json.Unmarshal(out, &nics); err != nil {
		t.Fatalf("decode %s: %v", out, err)
	}
	again, err := json.MarshalIndent(nics, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(again, '\n'), out) {
		t.Errorf("JSON does not round-trip:\n%s\nvs\n%s", out, again)
	}
	local, err := probe.Local()
	if err != nil {
		t.Fatal(err)
	}
	names := func(ns []probe.NIC) (s []string) {
		for _, n := range ns {
			s = append(s, n.Name+"/"+string(n.Kind))
		}
		return s
	}
	if !reflect.DeepEqual(names(nics), names(local)) {
		t.Errorf("probe --json lists %v, probe.Local() %v", names(nics), names(local))
	}
}

func TestProbeRoutesEmbeddedGrid(t *testing.T) {
	// No sites.toml in this directory: the embedded local grid (Table I on
	// the loopback range).
	out := runGridtui(t, "probe", "--routes", "--json")
	var got struct {
		Rows   []probe.Row   `json:"rows"`
		Routes []probe.Route `json:"routes"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("decode %s: %v", out, err)
	}
	n := len(got.Rows)
	if n < 2 || len(got.Routes) != n*(n-1)/2 {
		t.Fatalf("%d rows and %d routes, want n ≥ 2 and n(n-1)/2", n, len(got.Routes))
	}
	for _, r := range got.Routes {
		want := probe.Ethernet
		ca, _, _ := strings.Cut(r.A, "-")
		cb, _, _ := strings.Cut(r.B, "-")
		if ca == cb { // alpha-x ↔ alpha-y, beta-x ↔ beta-y
			want = probe.Infiniband
		}
		if r.Network != want {
			t.Errorf("%s: network %s, want %s", r.Reason, r.Network, want)
		}
	}
}
