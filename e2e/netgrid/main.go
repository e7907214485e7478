//go:build e2e

// Command netgrid builds gridtui's multi-host test grid (package e2e) and
// keeps it up until Ctrl-C, or removes the leftovers of killed test runs.
//
//	netgrid up [-a 3] [-b 3] [-wan 100mbit]   build a grid, print how to use it, wait for Ctrl-C
//	netgrid clean                             remove stale grids whose owner process is gone
//	netgrid status                            list the grids' namespaces and users
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/gridtui/gridtui/e2e"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: netgrid up [-a N] [-b N] [-wan RATE] | clean | status")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "up":
		err = up(os.Args[2:])
	case "clean":
		err = clean()
	case "status":
		err = status()
	default:
		err = fmt.Errorf("netgrid: unknown command %q (want up, clean or status)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func up(args []string) error {
	fs := flag.NewFlagSet("up", flag.ExitOnError)
	a := fs.Int("a", 3, "hosts in cluster alpha (198.18.64.x / 198.19.64.x)")
	b := fs.Int("b", 3, "hosts in cluster beta (198.18.34.x / 198.19.34.x)")
	wan := fs.String("wan", "", "tc tbf rate of the inter-cluster Ethernet link, e.g. 100mbit")
	_ = fs.Parse(args)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	uctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	g, err := e2e.Up(uctx, e2e.Config{HostsA: *a, HostsB: *b, LimitWAN: *wan,
		Logf: func(f string, v ...any) { fmt.Printf(f+"\n", v...) }})
	if err != nil {
		return err
	}
	fmt.Printf("\nhosts:\n")
	for _, h := range g.Hosts {
		fmt.Printf("  %-3s %-6s netns %-16s user %-16s eth0 %-13s ib0 %s\n", h.Name, h.Cluster, h.Netns, h.User, h.Ethernet, h.Fast)
	}
	fmt.Printf("\nthe console runs in namespace %s (eth0 %s), HOME=%s:\n", g.Console, e2e.ConsoleAddr, g.ConsoleHome)
	fmt.Printf("  ip netns exec %s env HOME=%s ./gridtui --sites %s deploy\n", g.Console, g.ConsoleHome, g.SitesFile)
	fmt.Printf("  ip netns exec %s ssh -F /dev/null -i %s -o UserKnownHostsFile=%s %s@%s\n",
		g.Console, g.Identity, g.KnownHosts, g.Hosts[0].User, g.Hosts[0].Ethernet)
	fmt.Printf("\nCtrl-C tears the grid down.\n")
	<-ctx.Done()
	fmt.Println("\ntearing down")
	return g.Down()
}

func clean() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	removed, err := e2e.CleanStale(ctx)
	for _, r := range removed {
		fmt.Println("removed", r)
	}
	if len(removed) == 0 && err == nil {
		fmt.Println("no stale grid")
	}
	return err
}

func status() error {
	ents, _ := os.ReadDir("/run/netns")
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), e2e.Prefix) {
			fmt.Println("netns", e.Name())
		}
	}
	data, err := os.ReadFile("/etc/passwd")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, e2e.Prefix) {
			name, _, _ := strings.Cut(line, ":")
			fmt.Println("user", name)
		}
	}
	return nil
}
