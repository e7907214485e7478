//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net"
	"runtime"

	"golang.org/x/sys/unix"
)

// InNetns runs f on an OS thread that has joined host's network namespace
// ("console" for the console's): sockets f opens live in that namespace and
// keep working from any goroutine afterwards. The thread goes back to its
// own namespace before it is handed back to the scheduler; if it cannot, it
// stays locked and dies with its goroutine. (Relying on that death alone is
// not enough: Go never ends the main thread, which would then sit in the
// namespace for good — and be killed with it by Down.)
func (g *Grid) InNetns(host string, f func() error) error {
	ns := g.Console
	if host != "console" {
		h := g.Host(host)
		if h == nil {
			return fmt.Errorf("e2e: no host %q in grid %s", host, g.ID)
		}
		ns = h.Netns
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		restore, err := joinNetns(ns)
		if err != nil {
			errc <- err
			return
		}
		errc <- f()
		if restore() {
			runtime.UnlockOSThread()
		}
	}()
	return <-errc
}

// joinNetns moves the calling (locked) thread into ns and returns a function
// that moves it back, reporting whether it could.
func joinNetns(ns string) (restore func() bool, err error) {
	self, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("e2e: open own namespace: %w", err)
	}
	fd, err := unix.Open("/run/netns/"+ns, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Close(self)
		return nil, fmt.Errorf("e2e: open namespace %s: %w", ns, err)
	}
	err = unix.Setns(fd, unix.CLONE_NEWNET)
	unix.Close(fd)
	if err != nil {
		unix.Close(self)
		return nil, fmt.Errorf("e2e: join namespace %s: %w", ns, err)
	}
	return func() bool {
		defer unix.Close(self)
		return unix.Setns(self, unix.CLONE_NEWNET) == nil
	}, nil
}

// Listen opens a TCP listener on addr ("198.19.64.11:7000") inside host's
// namespace.
func (g *Grid) Listen(host, addr string) (net.Listener, error) {
	var l net.Listener
	err := g.InNetns(host, func() (err error) {
		l, err = net.Listen("tcp4", addr)
		return err
	})
	return l, err
}

// Dial connects from inside host's namespace to addr over TCP.
func (g *Grid) Dial(ctx context.Context, host, addr string) (net.Conn, error) {
	var c net.Conn
	err := g.InNetns(host, func() (err error) {
		var d net.Dialer
		c, err = d.DialContext(ctx, "tcp4", addr)
		return err
	})
	return c, err
}
