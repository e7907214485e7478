package predict

import (
	"errors"
	"testing"
)

// FuzzSetNetwork feeds what-if edits as a user types them on the command
// line: every one is applied or refused with ErrPlatform, never a panic or
// a non-positive rate.
func FuzzSetNetwork(f *testing.F) {
	for _, s := range []string{"ethernet=10Gbit/s,100us", "ethernet=100Mbit/s", "unix=1.5GB/s,1us", "x=", "=1GB/s",
		"ethernet=NaNGB/s", "ethernet=InfMbit/s", "ethernet=1e400GB/s", "ethernet=1Gbit/s,-1s", "a=b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, edit string) {
		pl := Platform{Networks: DefaultNetworks()}
		if err := pl.SetNetwork(edit); err != nil {
			if !errors.Is(err, ErrPlatform) {
				t.Errorf("%q: error %v does not wrap ErrPlatform", edit, err)
			}
			return
		}
		for name, n := range pl.Networks {
			if !(n.Bandwidth > 0) || n.Bandwidth > 1e300 || n.Latency < 0 {
				t.Errorf("%q: network %s %+v", edit, name, n)
			}
		}
	})
}

// TestFormatBandwidth: a written rate reads back within its four digits.
func TestFormatBandwidth(t *testing.T) {
	for _, tc := range []struct {
		bytes float64
		want  string
	}{{1.25e9, "10Gbit/s"}, {3.9237e9, "31.39Gbit/s"}, {12.5e6, "100Mbit/s"}, {8e3, "64kbit/s"}} {
		got := FormatBandwidth(tc.bytes)
		back, err := ParseBandwidth(got)
		if got != tc.want || err != nil || back < tc.bytes*0.9995 || back > tc.bytes*1.0005 {
			t.Errorf("%g B/s: %q reads back %g (%v), want %q", tc.bytes, got, back, err, tc.want)
		}
	}
}
