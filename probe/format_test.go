package probe

import (
	"strings"
	"testing"
)

func TestFormatSpeed(t *testing.T) {
	tests := map[string]struct {
		mbps int
		want string
	}{
		"unknown":    {0, "unknown"},
		"negative":   {-1, "unknown"},
		"fast eth":   {100, "100 Mb/s"},
		"10GbE":      {10000, "10 Gb/s"},
		"FDR IB":     {56000, "56 Gb/s"},
		"odd figure": {2500, "2.5 Gb/s"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := FormatSpeed(tt.mbps); got != tt.want {
				t.Errorf("FormatSpeed(%d) = %q, want %q", tt.mbps, got, tt.want)
			}
		})
	}
}

func TestWriteNICTable(t *testing.T) {
	var sb strings.Builder
	nics := []NIC{nic("lo", Loopback, "127.0.0.1", "::1"), speed(nic("ib0", Infiniband, "192.18.64.10"), 56000), down(nic("eth1", Ethernet))}
	if err := WriteNICTable(&sb, nics); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"NAME  KIND        STATE  MTU   SPEED    ADDRESSES\n" +
		"lo    loopback    up     1500  unknown  127.0.0.1, ::1\n" +
		"ib0   infiniband  up     1500  56 Gb/s  192.18.64.10\n" +
		"eth1  ethernet    down   1500  unknown  -\n"
	if sb.String() != want {
		t.Errorf("table\n%s\nwant\n%s", sb.String(), want)
	}
}
