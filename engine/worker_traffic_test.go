package engine

import (
	"reflect"
	"testing"
)

// TestAddTraffic: another process's counters (an in-process program's)
// add to the endpoint's on the same network and append on others.
func TestAddTraffic(t *testing.T) {
	eth := func(m, b uint64) NetTraffic { return NetTraffic{Network: "ethernet", Messages: m, Bytes: b} }
	for name, tc := range map[string]struct{ t, more, want []NetTraffic }{
		"none":   {nil, nil, nil},
		"own":    {[]NetTraffic{eth(1, 10)}, nil, []NetTraffic{eth(1, 10)}},
		"theirs": {nil, []NetTraffic{eth(2, 20)}, []NetTraffic{eth(2, 20)}},
		"same":   {[]NetTraffic{eth(1, 10)}, []NetTraffic{{Network: "ethernet", Messages: 2, Bytes: 20, Skipped: 3}}, []NetTraffic{{Network: "ethernet", Messages: 3, Bytes: 30, Skipped: 3}}},
		"other":  {[]NetTraffic{eth(1, 10)}, []NetTraffic{{Network: "unix", Messages: 2}}, []NetTraffic{eth(1, 10), {Network: "unix", Messages: 2}}},
	} {
		if got := addTraffic(tc.t, tc.more); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", name, got, tc.want)
		}
	}
}
