//go:build !linux

package rmnp

import "net"

// CongestionAuto and CongestionSystem are the special values of
// Config.CongestionControl; only Linux applies it, see congestion_linux.go.
const (
	CongestionAuto   = ""
	CongestionSystem = "system"
)

func tuneCongestion(net.Conn, string) string { return "" }
