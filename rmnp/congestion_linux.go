package rmnp

import (
	"net"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Congestion control of TCP links (Config.CongestionControl). A congestion
// control that paces its sender from a bandwidth estimate (BBR) traps
// message-passing traffic: every sample of a ping-pong is application-limited,
// a large message is paced at the estimated rate, and the delivery rate it then
// measures is that pacing rate, so an estimate that starts low stays low for the
// life of the connection. The same 512 KiB ping-pong then runs at one of two
// speeds, per connection, the slow one about twice as slow (issue 22,
// docs/bench/rmnp.md). On a path of sub-millisecond round trip (the same host,
// a cluster's network) pacing protects no queue worth protecting, so a link
// there moves to a congestion control that sends at the window's pace (cubic,
// or reno where cubic is not allowed to unprivileged users); longer paths keep
// the system's choice.

// CongestionAuto and CongestionSystem are the special values of
// Config.CongestionControl.
const (
	CongestionAuto   = ""       // pacing controls leave short paths (see above)
	CongestionSystem = "system" // keep the kernel's default on every link
)

// shortPath is the round trip under which a link leaves a pacing congestion
// control: a LAN or the same host, not a path between sites.
const shortPath = time.Millisecond

// windowControls are the congestion controls tried, in order, for a short path.
var windowControls = []string{"cubic", "reno"}

// paces reports whether a congestion control paces from a bandwidth estimate.
func paces(name string) bool { return strings.HasPrefix(name, "bbr") }

// tuneCongestion applies Config.CongestionControl to a TCP link's connection
// and returns the congestion control the link ends with ("" for a connection
// that is not TCP or cannot be inspected). Errors leave the kernel's choice.
func tuneCongestion(c net.Conn, want string) string {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return ""
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return ""
	}
	var got string
	_ = raw.Control(func(fd uintptr) {
		got = setCongestion(int(fd), want)
	})
	return got
}

func setCongestion(fd int, want string) string {
	cur, err := unix.GetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION)
	if err != nil {
		return ""
	}
	cur = strings.TrimRight(cur, "\x00")
	var try []string
	switch want {
	case CongestionSystem:
		return cur
	case CongestionAuto:
		if !paces(cur) || !shortRoundTrip(fd) {
			return cur
		}
		try = windowControls
	default:
		try = []string{want}
	}
	for _, name := range try {
		if name == cur {
			return cur
		}
		if unix.SetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION, name) == nil {
			return name
		}
	}
	return cur
}

// shortRoundTrip reports whether the connection's least round trip so far (the
// three-way handshake's, measured by the kernel, is in it) is under shortPath.
func shortRoundTrip(fd int) bool {
	ti, err := unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
	if err != nil {
		return false
	}
	rtt := ti.Min_rtt
	if rtt == 0 {
		rtt = ti.Rtt
	}
	return rtt > 0 && time.Duration(rtt)*time.Microsecond < shortPath
}
