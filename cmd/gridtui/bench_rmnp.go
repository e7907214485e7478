package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gridtui/gridtui/internal/jsonout"
	"github.com/gridtui/gridtui/rmnp"
	"github.com/spf13/cobra"
)

// benchRmnpFlags are the flags of `gridtui bench rmnp`.
type benchRmnpFlags struct {
	sizes      string
	transports string
	rounds     int
	round      time.Duration
	minTrips   int
	window     int
	json       bool
}

// benchRow is one line of `gridtui bench rmnp --json`: the three kinds
// measured for one transport, size and table ("ping_pong" or "stream").
type benchRow struct {
	Table     string `json:"table"`
	Transport string `json:"transport"`
	Size      int    `json:"size_bytes"`
	Plain     rmnp.PingPongResult
	Framed    rmnp.PingPongResult
	RMNP      rmnp.PingPongResult `json:"rmnp"`
}

// newBenchRmnpCmd returns `gridtui bench rmnp`: one-way latency and bandwidth of RMNP
// against a plain net.Conn ping-pong measured in the same run (loopback only).
func newBenchRmnpCmd() *cobra.Command {
	f := &benchRmnpFlags{}
	cmd := &cobra.Command{
		Use:   "rmnp",
		Short: "Measure RMNP latency and bandwidth against a plain socket ping-pong",
		Long: "rmnp runs a ping-pong between two endpoints of this process over loopback TCP\n" +
			"(127.0.0.1) and a Unix socket, through RMNP (a synchronous DATA link), over a\n" +
			"plain net.Conn as the baseline, and over a plain net.Conn carrying RMNP's frame\n" +
			"layout (\"framed\": the floor of the wire format), alternating the three, and prints\n" +
			"the best round of each: one-way latency (half a round trip), bandwidth, the\n" +
			"RMNP/plain ratios, RMNP against framed, and the process CPU time per message\n" +
			"(RMNP/plain), which moves less than wall time on a busy machine.\n\n" +
			"A second table measures streaming bandwidth as the OSU micro-benchmarks' osu_bw\n" +
			"does: --window messages back to back, then a 1-byte acknowledgement, for the\n" +
			"same three kinds (--window 0 leaves it out).",
		Example: "  gridtui bench rmnp\n  gridtui bench rmnp --window 0",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBenchRmnp(cmd, f)
		},
	}
	cmd.Flags().StringVar(&f.sizes, "sizes", "8,1K,64K,512K,4M", "message sizes (suffix K or M for KiB, MiB)")
	cmd.Flags().StringVar(&f.transports, "transports", "tcp,unix", "transports: tcp, unix")
	cmd.Flags().IntVar(&f.rounds, "rounds", 5, "alternating rounds per size (best kept)")
	cmd.Flags().DurationVar(&f.round, "round", 200*time.Millisecond, "duration of one round")
	cmd.Flags().IntVar(&f.minTrips, "min-trips", 10, "minimum round trips (stream: windows) per round")
	cmd.Flags().IntVar(&f.window, "window", rmnp.StreamWindow, "messages per acknowledgement in the streaming table (0: no streaming table)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print every measurement as JSON (durations in seconds) instead of the tables")
	return cmd
}

func runBenchRmnp(cmd *cobra.Command, f *benchRmnpFlags) error {
	sizes, err := parseSizes(f.sizes)
	if err != nil {
		return err
	}
	if f.rounds < 1 || f.minTrips < 1 || f.round <= 0 || f.window < 0 {
		return fmt.Errorf("gridtui bench rmnp: --rounds, --round and --min-trips must be positive, --window at least 0")
	}
	transports, err := parseTransports(f.transports)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if f.json {
		rows, err := benchRmnpRows(cmd, f, transports, sizes)
		if err != nil {
			return err
		}
		return jsonout.Write(out, rows)
	}
	fmt.Fprintf(out, "| transport | size | plain one-way | rmnp one-way | latency ratio | plain MB/s | rmnp MB/s | bandwidth ratio | framed one-way | rmnp/framed | CPU ratio |\n")
	fmt.Fprintf(out, "|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, tr := range transports {
		for _, size := range sizes {
			plain, framed, rm, err := rmnp.CompareFramedPingPong(cmd.Context(), tr, size, f.rounds, f.round, f.minTrips)
			if err != nil {
				return fmt.Errorf("gridtui bench rmnp: %s %d B: %w", tr, size, err)
			}
			writeBenchRow(out, plain, framed, rm)
		}
	}
	if f.window == 0 {
		return nil
	}
	fmt.Fprintf(out, "\nStreaming, %d messages per acknowledgement:\n\n", f.window)
	fmt.Fprintf(out, "| transport | size | plain MB/s | rmnp MB/s | bandwidth ratio | framed MB/s | rmnp/framed | CPU ratio |\n")
	fmt.Fprintf(out, "|---|---|---|---|---|---|---|---|\n")
	for _, tr := range transports {
		for _, size := range sizes {
			plain, framed, rm, err := rmnp.CompareStream(cmd.Context(), tr, size, f.window, f.rounds, f.round, f.minTrips)
			if err != nil {
				return fmt.Errorf("gridtui bench rmnp: stream %s %d B: %w", tr, size, err)
			}
			writeStreamRow(out, plain, framed, rm)
		}
	}
	return nil
}

// benchRmnpRows measures what the tables show and returns it as rows.
func benchRmnpRows(cmd *cobra.Command, f *benchRmnpFlags, transports []string, sizes []int) ([]benchRow, error) {
	var rows []benchRow
	for _, tr := range transports {
		for _, size := range sizes {
			plain, framed, rm, err := rmnp.CompareFramedPingPong(cmd.Context(), tr, size, f.rounds, f.round, f.minTrips)
			if err != nil {
				return nil, fmt.Errorf("gridtui bench rmnp: %s %d B: %w", tr, size, err)
			}
			rows = append(rows, benchRow{"ping_pong", tr, size, plain, framed, rm})
			if f.window == 0 {
				continue
			}
			plain, framed, rm, err = rmnp.CompareStream(cmd.Context(), tr, size, f.window, f.rounds, f.round, f.minTrips)
			if err != nil {
				return nil, fmt.Errorf("gridtui bench rmnp: stream %s %d B: %w", tr, size, err)
			}
			rows = append(rows, benchRow{"stream", tr, size, plain, framed, rm})
		}
	}
	return rows, nil
}

func writeStreamRow(out io.Writer, plain, framed, rm rmnp.PingPongResult) {
	bp, bf, br := plain.Bandwidth()/1e6, framed.Bandwidth()/1e6, rm.Bandwidth()/1e6
	fmt.Fprintf(out, "| %s | %s | %.0f | %.0f | %.2f× | %.0f | %.2f× | %s |\n",
		plain.Transport, sizeLabel(plain.Size), bp, br, br/bp, bf, br/bf, cpuRatio(plain, rm))
}

// cpuRatio returns RMNP's process CPU time per message over plain's, or "n/a".
func cpuRatio(plain, rm rmnp.PingPongResult) string {
	if cp, cr := plain.OneWayCPU(), rm.OneWayCPU(); cp > 0 && cr > 0 {
		return fmt.Sprintf("%.2f×", float64(cr)/float64(cp))
	}
	return "n/a"
}

func writeBenchRow(out io.Writer, plain, framed, rm rmnp.PingPongResult) {
	lp, lf, lr := plain.OneWay(), framed.OneWay(), rm.OneWay()
	bp, br := plain.Bandwidth()/1e6, rm.Bandwidth()/1e6
	cpu := cpuRatio(plain, rm)
	fmt.Fprintf(out, "| %s | %s | %v | %v | %.2f× | %.0f | %.0f | %.2f× | %v | %.2f× | %s |\n",
		plain.Transport, sizeLabel(plain.Size), lp.Round(10*time.Nanosecond), lr.Round(10*time.Nanosecond),
		float64(lr)/float64(lp), bp, br, br/bp, lf.Round(10*time.Nanosecond), float64(lr)/float64(lf), cpu)
}

// parseTransports reads "tcp,unix", refusing unknown names before anything
// is printed.
func parseTransports(s string) ([]string, error) {
	var out []string
	for _, tr := range strings.Split(s, ",") {
		tr = strings.TrimSpace(tr)
		if tr != "tcp" && tr != "unix" {
			return nil, fmt.Errorf("gridtui bench rmnp: unknown transport %q in --transports (want tcp, unix)", tr)
		}
		out = append(out, tr)
	}
	return out, nil
}

// parseSizes reads "8,1K,64K,4M".
func parseSizes(s string) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		mult := 1
		switch {
		case strings.HasSuffix(f, "K"):
			mult, f = 1<<10, strings.TrimSuffix(f, "K")
		case strings.HasSuffix(f, "M"):
			mult, f = 1<<20, strings.TrimSuffix(f, "M")
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 || n*mult > 64<<20 {
			return nil, fmt.Errorf("gridtui bench rmnp: bad size %q in --sizes (1 B to 64 MiB)", f)
		}
		sizes = append(sizes, n*mult)
	}
	return sizes, nil
}

func sizeLabel(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
