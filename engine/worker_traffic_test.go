package engine

import (
	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/engine/worker"
	"reflect"
	"testing"
)

// TestAddTraffic: another process's counters (an in-process program's)
// add to the endpoint's on the same network and append on others.
func TestAddTraffic(t *testing.T) {
	eth := func(m, b uint64) solve.NetTraffic {
		return solve.NetTraffic{Network: "ethernet", Messages: m, Bytes: b}
	}
	for name, tc := range map[string]struct{ t, more, want []solve.NetTraffic }{
		"none":   {nil, nil, nil},
		"own":    {[]solve.NetTraffic{eth(1, 10)}, nil, []solve.NetTraffic{eth(1, 10)}},
		"theirs": {nil, []solve.NetTraffic{eth(2, 20)}, []solve.NetTraffic{eth(2, 20)}},
		"same":   {[]solve.NetTraffic{eth(1, 10)}, []solve.NetTraffic{{Network: "ethernet", Messages: 2, Bytes: 20, Skipped: 3}}, []solve.NetTraffic{{Network: "ethernet", Messages: 3, Bytes: 30, Skipped: 3}}},
		"other":  {[]solve.NetTraffic{eth(1, 10)}, []solve.NetTraffic{{Network: "unix", Messages: 2}}, []solve.NetTraffic{eth(1, 10), {Network: "unix", Messages: 2}}},
	} {
		if got := worker.AddTraffic(tc.t, tc.more); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", name, got, tc.want)
		}
	}
}
