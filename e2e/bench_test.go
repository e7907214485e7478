//go:build e2e

package e2e

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkGridUpDown measures building and tearing down the default 3+3
// grid (namespaces, bridges, users, keys, six sshds, inventory).
func BenchmarkGridUpDown(b *testing.B) {
	if unsupported != nil {
		b.Skipf("e2e: %v", unsupported)
	}
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		g, err := Up(ctx, Config{})
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		if err := g.Down(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLinks measures TCP throughput between hosts over each path of
// a grid whose WAN link is limited to 100mbit: ib0 and eth0 inside cluster
// alpha (the baseline), and eth0 from alpha to beta through the tbf.
func BenchmarkLinks(b *testing.B) {
	if unsupported != nil {
		b.Skipf("e2e: %v", unsupported)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	g, err := Up(ctx, Config{HostsA: 2, HostsB: 1, LimitWAN: "100mbit"})
	cancel()
	if err != nil {
		b.Fatal(err)
	}
	defer g.Down()
	a1, b1 := g.Host("a1"), g.Host("b1")
	for _, c := range []struct {
		name, to string
		addr     string
	}{
		{"ib0 a2→a1", "a1", a1.Fast.String()},
		{"eth0 a2→a1", "a1", a1.Ethernet.String()},
		{"eth0 a2→b1 WAN 100mbit", "b1", b1.Ethernet.String()},
	} {
		b.Run(c.name, func(b *testing.B) {
			l, err := g.Listen(c.to, net.JoinHostPort(c.addr, "0"))
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			go serve(l)
			conn, err := g.Dial(context.Background(), "a2", l.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			buf := make([]byte, 1<<20)
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				conn.SetWriteDeadline(time.Now().Add(30 * time.Second))
				if _, err := conn.Write(buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDeployWAN measures a fresh `gridtui deploy` from the console to
// one host and to eight hosts of cluster beta, all behind a 10 Mbit/s tbf
// WAN link: by default (one host of the site gets the binary and relays it
// to the others) and with --no-relay (every host gets it from the console).
// With $GRIDTUI_DEPLOY_BASELINE naming another gridtui binary (an earlier
// build), the same deploys by that binary run alternately with these, as
// the baseline. Each iteration removes ~/.gridtui on the targets first, so
// every deploy ships the whole binary.
func BenchmarkDeployWAN(b *testing.B) {
	if unsupported != nil {
		b.Skipf("e2e: %v", unsupported)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	g, err := Up(ctx, Config{HostsA: 0, HostsB: 8, LimitWAN: "10mbit"})
	cancel()
	if err != nil {
		b.Fatal(err)
	}
	defer g.Down()
	one := []string{g.Hosts[0].Ethernet.String()}
	type deployCase struct {
		name   string
		binary string
		hosts  []string
		flags  []string
	}
	bin := gridtuiBinary(b)
	cases := []deployCase{
		{"1 host", bin, one, nil},
		{"8 hosts relay", bin, []string{"beta"}, nil},
		{"8 hosts no relay", bin, []string{"beta"}, []string{"--no-relay"}},
	}
	if base := os.Getenv("GRIDTUI_DEPLOY_BASELINE"); base != "" {
		cases = append(cases, deployCase{"1 host baseline", base, one, nil}, deployCase{"8 hosts baseline", base, []string{"beta"}, nil})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				for _, h := range g.Hosts {
					os.RemoveAll(filepath.Join(h.Home, ".gridtui"))
				}
				b.StartTimer()
				argv := append([]string{c.binary, "--sites", g.SitesFile, "deploy"}, append(c.flags, c.hosts...)...)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
				out, err := g.ConsoleCommand(ctx, argv...).CombinedOutput()
				cancel()
				if err != nil {
					b.Fatalf("deploy: %v\n%s", err, out)
				}
			}
		})
	}
}
