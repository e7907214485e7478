package probe

import (
	"errors"
	"testing"
)

func TestApplyHints(t *testing.T) {
	host := []NIC{nic("lo", Loopback, "127.0.0.1"), nic("docker0", Ethernet, "172.17.0.1"),
		nic("enp1s0", Ethernet, "192.16.64.10"), nic("ib0", Other, "192.18.64.10"), nic("ib1", Infiniband, "10.9.0.1"),
		nic("myri0", Ethernet, "192.19.64.10")}
	kinds := func(nics []NIC) map[string]Kind {
		m := map[string]Kind{}
		for _, n := range nics {
			m[n.Name] = n.Kind
		}
		return m
	}
	tests := []struct {
		name, eth, fast string
		want            map[string]Kind
	}{
		{"no hints", "", "", map[string]Kind{"lo": Loopback, "docker0": Ethernet, "enp1s0": Ethernet, "ib0": Other, "ib1": Infiniband, "myri0": Ethernet}},
		{"ethernet hint demotes other ethernet", "enp1s0", "", map[string]Kind{"lo": Loopback, "docker0": Other, "enp1s0": Ethernet, "ib0": Other, "ib1": Infiniband, "myri0": Other}},
		{"fast hint makes infiniband, demotes other fast", "", "ib0", map[string]Kind{"lo": Loopback, "docker0": Ethernet, "enp1s0": Ethernet, "ib0": Infiniband, "ib1": Other, "myri0": Ethernet}},
		{"fast hint on myri is myrinet", "enp1s0", "myri0", map[string]Kind{"lo": Loopback, "docker0": Other, "enp1s0": Ethernet, "ib0": Other, "ib1": Other, "myri0": Myrinet}},
		{"missing hint changes nothing", "eth0", "ib9", map[string]Kind{"lo": Loopback, "docker0": Ethernet, "enp1s0": Ethernet, "ib0": Other, "ib1": Infiniband, "myri0": Ethernet}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := kinds(host)
			got := kinds(ApplyHints(host, tt.eth, tt.fast))
			for name, k := range tt.want {
				if got[name] != k {
					t.Errorf("%s: kind %s, want %s", name, got[name], k)
				}
			}
			if after := kinds(host); len(after) != len(before) || after["docker0"] != before["docker0"] || after["ib0"] != before["ib0"] {
				t.Errorf("ApplyHints modified its input: %v", after)
			}
		})
	}
}

func TestCheckHints(t *testing.T) {
	nics := []NIC{nic("eth0", Ethernet, "10.0.0.1")}
	if err := CheckHints("h1", nics, "eth0", ""); err != nil {
		t.Errorf("present hint: %v", err)
	}
	err := CheckHints("h1", nics, "eth0", "ib0")
	if !errors.Is(err, ErrHintedNICMissing) {
		t.Fatalf("err = %v, want ErrHintedNICMissing", err)
	}
	if want := "probe: host h1: ib0: hinted interface not found"; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
	// One NIC cannot be both networks: ApplyHints would drop the fast hint.
	err = CheckHints("h1", nics, "eth0", "eth0")
	if !errors.Is(err, ErrHintConflict) {
		t.Fatalf("same NIC for both hints: err = %v, want ErrHintConflict", err)
	}
	if want := "probe: host h1: eth0: the same interface is hinted as ethernet and fast"; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
}

func TestHintsThenRoute(t *testing.T) {
	// A real host often has a bridge typed as Ethernet; without the hint its
	// address could be taken for the node's Ethernet address.
	mk := func(name, eth, ib string) Node {
		nics := ApplyHints([]NIC{nic("docker0", Ethernet, "172.17.0.1"), nic("eno1", Ethernet, eth), nic("ib0", Other, ib)}, "eno1", "ib0")
		return node(name, "", nics...)
	}
	r, err := BestNetwork(mk("a", "10.0.64.1", "10.1.64.1"), mk("b", "10.0.64.2", "10.1.64.2"), Locality{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Network != Infiniband || r.AAddr != "10.1.64.1" || r.BAddr != "10.1.64.2" {
		t.Errorf("route %+v, want infiniband 10.1.64.1 ↔ 10.1.64.2", r)
	}
}
