//go:build e2e

package e2e

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchRunResult is what TestGatewayStudy reads of a run's report.
type benchRunResult struct {
	Wall     float64
	Raw, WAN uint64 // DATA bytes before S2 and on the gateway links, as the gateways counted them
	Link     uint64 // bytes the WAN delivered to the gateway hosts (tc), frames and TCP/IP included
}

// benchRun runs `gridtui run --json --no-record args` on g with env added
// and returns its wall time and gateway counters.
func benchRun(t *testing.T, g *Grid, env []string, args ...string) benchRunResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	before, _ := g.WANBytes(ctx)
	cmd := g.ConsoleCommand(ctx, append([]string{gridtuiBinary(t), "--sites", g.SitesFile, "run", "--json", "--no-record"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var res benchRunResult
	var outcome string
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev struct {
			Event string
			Data  struct {
				Outcome  string  `json:"outcome"`
				Wall     float64 `json:"wall_seconds"`
				Gateways []struct {
					RawData  uint64 `json:"raw_data"`
					WireData uint64 `json:"wire_data"`
				} `json:"gateways"`
			}
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Event != "report" {
			continue
		}
		outcome, res.Wall = ev.Data.Outcome, ev.Data.Wall
		for _, gw := range ev.Data.Gateways {
			res.Raw += gw.RawData
			res.WAN += gw.WireData
		}
	}
	if err := cmd.Wait(); err != nil || outcome != "ok" {
		t.Fatalf("run %v: %v, outcome %q", args, err, outcome)
	}
	after, _ := g.WANBytes(ctx)
	for h := range after {
		res.Link += after[h] - before[h]
	}
	return res
}

// TestGatewayStudy measures, alternating in the same minutes, a two-site
// synchronous run with the sites directly connected over a tbf-limited WAN
// against the same run on sites whose nodes cannot see each other: through
// their gateways over a WAN of the same limit, with S2 and without, and
// through an SSH tunnel between gateways with no port open (no WAN: the
// console's connections carry it, its legs limited to the same rate once
// deployed). It is a benchmark: it runs only with
// GRIDTUI_BENCH_GATEWAY=1; GRIDTUI_BENCH_GATEWAY_WAN lists the WAN rates
// (default "100mbit,10mbit"), GRIDTUI_BENCH_GATEWAY_N the problem sizes per
// rate (default "48,32"), GRIDTUI_BENCH_GATEWAY_ROUNDS the rounds (3).
func TestGatewayStudy(t *testing.T) {
	if os.Getenv("GRIDTUI_BENCH_GATEWAY") != "1" {
		t.Skip("a benchmark: set GRIDTUI_BENCH_GATEWAY=1")
	}
	rates := strings.Split(cmp.Or(os.Getenv("GRIDTUI_BENCH_GATEWAY_WAN"), "100mbit,10mbit"), ",")
	sizes := strings.Split(cmp.Or(os.Getenv("GRIDTUI_BENCH_GATEWAY_N"), "48,32"), ",")
	rounds, _ := strconv.Atoi(cmp.Or(os.Getenv("GRIDTUI_BENCH_GATEWAY_ROUNDS"), "3"))
	tunnel := newGridT(t, Config{Gateways: gatewayTunnel})
	deployOrSkip(t, tunnel)
	for i, rate := range rates {
		n := sizes[min(i, len(sizes)-1)]
		t.Run(rate, func(t *testing.T) {
			direct := newGridT(t, Config{LimitWAN: rate})
			split := newGridT(t, Config{Gateways: rate})
			deployOrSkip(t, direct)
			deployOrSkip(t, split)
			// The tunnel crosses the console: the same limit there.
			if err := tunnel.LimitConsole(context.Background(), rate); err != nil {
				t.Fatal(err)
			}
			args := []string{"--nodes", "6", "--scheme", "sync", "--n", n, "--eps", "1e-6", "--wall-time", "4m"}
			var d, s2, plain, tun []benchRunResult
			for range rounds {
				d = append(d, benchRun(t, direct, nil, args...))
				s2 = append(s2, benchRun(t, split, nil, args...))
				plain = append(plain, benchRun(t, split, []string{"GRIDTUI_GATEWAY_S2=off"}, args...))
				tun = append(tun, benchRun(t, tunnel, nil, args...))
			}
			reportStudy(t, rate, n, d, s2, plain, tun)
		})
	}
}

// reportStudy logs each round and the medians of TestGatewayStudy.
func reportStudy(t *testing.T, rate, n string, d, s2, plain, tun []benchRunResult) {
	med := func(rs []benchRunResult, f func(benchRunResult) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		sort.Float64s(v)
		return v[len(v)/2]
	}
	wall := func(r benchRunResult) float64 { return r.Wall }
	wan := func(r benchRunResult) float64 { return float64(r.WAN) }
	raw := func(r benchRunResult) float64 { return float64(r.Raw) }
	link := func(r benchRunResult) float64 { return float64(r.Link) }
	for i := range d {
		t.Logf("%s n=%s round %d: direct %.3fs, gateways+S2 %.3fs (%d DATA raw → %d, WAN link %d bytes), gateways plain %.3fs (%d DATA, WAN link %d bytes), SSH tunnel %.3fs",
			rate, n, i+1, d[i].Wall, s2[i].Wall, s2[i].Raw, s2[i].WAN, s2[i].Link, plain[i].Wall, plain[i].WAN, plain[i].Link, tun[i].Wall)
	}
	t.Logf("%s n=%s median wall: direct %.3fs, gateways+S2 %.3fs (%.2f×), gateways plain %.3fs (%.2f×), SSH tunnel %.3fs (%.2f× gateways+S2)",
		rate, n, med(d, wall), med(s2, wall), med(s2, wall)/med(d, wall), med(plain, wall), med(plain, wall)/med(d, wall),
		med(tun, wall), med(tun, wall)/med(s2, wall))
	t.Logf("%s n=%s median DATA on the gateway link: %.0f raw, %.0f with S2 (%.2f×), %.0f without; WAN link bytes (tc): %.0f with S2, %.0f without (%.2f×)",
		rate, n, med(s2, raw), med(s2, wan), med(s2, raw)/med(s2, wan), med(plain, wan), med(s2, link), med(plain, link), med(plain, link)/med(s2, link))
}
