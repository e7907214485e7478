package deploy

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestMain turns the test binary into a tiny worker when started as
// `<binary> worker`, and into the relay as `<binary> relay` (locally or after upload over SSH): ReadBoot, WriteHello,
// wait for stdin EOF. Nodes named "crash…" exit with an error and nodes
// named "mute…" never say hello, to test the failure paths; "deaf…" ignore
// SIGTERM; "stuck…" do not exit when their stdin closes (only SIGKILL ends
// them).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		os.Exit(testWorker())
	}
	if len(os.Args) == 2 && os.Args[1] == "relay" {
		if err := ServeRelay(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if len(os.Args) == 4 && os.Args[1] == "netcat" {
		os.Exit(testNetcat(os.Args[2], os.Args[3]))
	}
	os.Exit(m.Run())
}

func testWorker() int {
	b, err := ReadBoot(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "test worker:", err)
		return 2
	}
	switch {
	case strings.HasPrefix(b.Node, "crash"):
		fmt.Fprintln(os.Stderr, "test worker: crashing as asked")
		return 3
	case strings.HasPrefix(b.Node, "mute"):
		io.Copy(io.Discard, os.Stdin)
		return 0
	}
	if strings.HasPrefix(b.Node, "deaf") {
		signal.Ignore(syscall.SIGTERM) // a hang: only SIGKILL ends it
	}
	host, _ := os.Hostname()
	if strings.HasPrefix(b.Node, "parent") {
		// A child in the worker's process group that ignores stdin: Stop
		// must kill it with the group.
		c := exec.Command("sleep", "300")
		if err := c.Start(); err != nil {
			return 5
		}
		host = "child=" + strconv.Itoa(c.Process.Pid)
	}
	h := Hello{Node: b.Node, Host: host, PID: os.Getpid(), Version: "test", OS: runtime.GOOS,
		Arch: runtime.GOARCH, Cores: b.Cores, Listen: b.Listen}
	if err := WriteHello(os.Stdout, h); err != nil {
		return 4
	}
	if b.Owner != nil && len(b.Owner.OwnerHours) > 0 {
		WriteOwnerLine(os.Stdout, "wait: owner hours "+b.Owner.OwnerHours[0].String(), nil)
	}
	io.Copy(io.Discard, os.Stdin)
	if strings.HasPrefix(b.Node, "stuck") {
		select {}
	}
	return 0
}

// testNetcat joins stdin and stdout to host:port, a ProxyCommand for tests.
func testNetcat(host, port string) int {
	c, err := net.Dial("tcp", net.JoinHostPort(host, port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "netcat:", err)
		return 1
	}
	go func() { io.Copy(c, os.Stdin); c.(*net.TCPConn).CloseWrite() }()
	io.Copy(os.Stdout, c)
	return 0
}
