package deploy

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// benchGrid is n in-process SSH servers on 127.0.1.1..n and a ~15 MB binary.
type benchGrid struct {
	servers []*testServer
	hosts   []inventory.Host
	opt     Options
}

func newBenchGrid(b *testing.B, n int) *benchGrid {
	b.Helper()
	key := newTestKey(b, "")
	g := &benchGrid{}
	for i := 1; i <= n; i++ {
		s := newTestServer(b, fmt.Sprintf("127.0.1.%d", i), key.signer.PublicKey())
		g.servers = append(g.servers, s)
		g.hosts = append(g.hosts, testHost(s, key))
	}
	g.opt = testOptions(writeKnownHosts(b, g.servers...))
	bin := filepath.Join(b.TempDir(), "worker")
	buf := make([]byte, 15<<20)
	rand.Read(buf)
	if err := os.WriteFile(bin, buf, 0o755); err != nil {
		b.Fatal(err)
	}
	g.opt.Binary = bin
	return g
}

func (g *benchGrid) wipe(b *testing.B) {
	for _, s := range g.servers {
		if err := os.RemoveAll(filepath.Join(s.home, "work")); err != nil {
			b.Fatal(err)
		}
	}
}

func (g *benchGrid) deploy(b *testing.B) Summary {
	s, err := Deploy(context.Background(), sshInventory(), g.hosts, g.opt)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkDeploy measures a fresh deploy of a 15 MiB binary to 1 and 16
// hosts (connect, check, upload, verify, rename) and an unchanged redeploy
// to 16 hosts (connect and check only).
func BenchmarkDeploy(b *testing.B) {
	for _, n := range []int{1, 16} {
		b.Run(fmt.Sprintf("fresh/hosts=%d", n), func(b *testing.B) {
			g := newBenchGrid(b, n)
			b.SetBytes(int64(n) * 15 << 20)
			for b.Loop() {
				b.StopTimer()
				g.wipe(b)
				b.StartTimer()
				if s := g.deploy(b); s.Results[0].Bytes != 15<<20 {
					b.Fatalf("uploaded %d bytes", s.Results[0].Bytes)
				}
			}
		})
	}
	for _, n := range []int{1, 16} {
		b.Run(fmt.Sprintf("unchanged/hosts=%d", n), func(b *testing.B) {
			g := newBenchGrid(b, n)
			g.deploy(b)
			for b.Loop() {
				if s := g.deploy(b); s.Results[n-1].Detail != "unchanged" {
					b.Fatalf("redeploy result %+v", s.Results[n-1])
				}
			}
		})
	}
	// The floor of an unchanged redeploy in this simulation: the 16 remote
	// `sha256sum` runs that deciding "unchanged" requires, all on this
	// machine's cores, with no SSH at all.
	b.Run("baseline/sha256sum-x16", func(b *testing.B) {
		g := newBenchGrid(b, 1)
		for b.Loop() {
			var eg errgroup.Group
			for range 16 {
				eg.Go(func() error { return exec.Command("sh", "-c", "sha256sum "+shQuote(g.opt.Binary)+" >/dev/null").Run() })
			}
			if err := eg.Wait(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
