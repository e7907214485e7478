package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gridtui/gridtui/internal/jsonout"
	"github.com/gridtui/gridtui/internal/rmnpbench"
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
	runs       int
	json       bool
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
			"same three kinds (--window 0 leaves it out).\n\n" +
			"--runs N measures every size N times, each time on fresh connections, prints a\n" +
			"row per run and a spread table (least, median and largest one-way time and\n" +
			"bandwidth ratio, and every ratio sorted): a connection that falls into a slow\n" +
			"mode shows as a second cluster instead of disappearing in a best-of figure.",
		Example: "  gridtui bench rmnp --sizes 8,64K --transports tcp\n" +
			"  gridtui bench rmnp --rounds 5 --round 50ms --sizes 512K,4M --transports tcp --window 0 --runs 10\n" +
			"  gridtui bench rmnp --sizes 4M --window 0 --json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBenchRmnp(cmd, f)
		},
	}
	cmd.Flags().StringVar(&f.sizes, "sizes", "8,1K,64K,512K,4M", "message sizes (suffix K or M for KiB, MiB)")
	cmd.Flags().StringVar(&f.transports, "transports", "tcp,unix", "transports: tcp, unix")
	cmd.Flags().IntVar(&f.rounds, "rounds", 5, "alternating rounds per size (best kept)")
	cmd.Flags().DurationVar(&f.round, "round", 200*time.Millisecond, "duration of one round")
	cmd.Flags().IntVar(&f.minTrips, "min-trips", 10, "minimum round trips (stream: windows) per round")
	cmd.Flags().IntVar(&f.window, "window", rmnpbench.StreamWindow, "messages per acknowledgement in the streaming table (0: no streaming table)")
	cmd.Flags().IntVar(&f.runs, "runs", 1, "runs per size, each on fresh connections (more than 1 adds a spread table)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print every run as JSON (durations in seconds) instead of the tables")
	return cmd
}

// benchCase is one transport and size of one table, and its runs.
type benchCase struct {
	Transport string
	Size      int
	Window    int // 0: the ping-pong table
	Runs      []rmnpbench.Comparison
}

func runBenchRmnp(cmd *cobra.Command, f *benchRmnpFlags) error {
	sizes, err := parseSizes(f.sizes)
	if err != nil {
		return err
	}
	if f.rounds < 1 || f.minTrips < 1 || f.round <= 0 || f.window < 0 || f.runs < 1 {
		return fmt.Errorf("gridtui bench rmnp: --rounds, --round, --min-trips and --runs must be positive, --window at least 0")
	}
	transports, err := parseTransports(f.transports)
	if err != nil {
		return err
	}
	var cases []*benchCase
	for _, window := range []int{0, f.window} {
		for _, tr := range transports {
			for _, size := range sizes {
				cases = append(cases, &benchCase{Transport: tr, Size: size, Window: window})
			}
		}
		if f.window == 0 {
			break
		}
	}
	// Runs outermost: the runs of one size are spread over the whole command
	// instead of falling into one noisy moment together.
	for range f.runs {
		for _, c := range cases {
			r, err := rmnpbench.Compare(cmd.Context(), rmnpbench.Options{Transport: c.Transport, Size: c.Size,
				Window: c.Window, Rounds: f.rounds, Round: f.round, MinTrips: f.minTrips})
			if err != nil {
				return fmt.Errorf("gridtui bench rmnp: %s %s window %d: %w", c.Transport, sizeLabel(c.Size), c.Window, err)
			}
			c.Runs = append(c.Runs, r)
		}
	}
	out := cmd.OutOrStdout()
	if f.json {
		return writeBenchJSON(out, cases)
	}
	writeBenchTables(out, cases, f.window, f.runs)
	return nil
}

func writeBenchTables(out io.Writer, cases []*benchCase, window, runs int) {
	fmt.Fprintf(out, "| transport | size | plain one-way | rmnp one-way | latency ratio | plain MB/s | rmnp MB/s | bandwidth ratio | framed one-way | rmnp/framed | CPU ratio |\n")
	fmt.Fprintf(out, "|---|---|---|---|---|---|---|---|---|---|---|\n")
	var streams []*benchCase
	for _, c := range cases {
		if c.Window > 0 {
			streams = append(streams, c)
			continue
		}
		for _, r := range c.Runs {
			writeBenchRow(out, r)
		}
	}
	if len(streams) > 0 {
		fmt.Fprintf(out, "\nStreaming, %d messages per acknowledgement:\n\n", window)
		fmt.Fprintf(out, "| transport | size | plain MB/s | rmnp MB/s | bandwidth ratio | framed MB/s | rmnp/framed | CPU ratio |\n")
		fmt.Fprintf(out, "|---|---|---|---|---|---|---|---|\n")
		for _, c := range streams {
			for _, r := range c.Runs {
				writeStreamRow(out, r)
			}
		}
	}
	if runs > 1 {
		writeSpreadTable(out, cases, runs)
	}
}

// writeSpreadTable prints, per table, transport and size, the spread of one-way
// time of plain and RMNP over the runs and of their bandwidth ratio.
func writeSpreadTable(out io.Writer, cases []*benchCase, runs int) {
	fmt.Fprintf(out, "\nSpread over %d runs on fresh connections (one-way time min / median / max):\n\n", runs)
	fmt.Fprintf(out, "| table | transport | size | plain one-way | rmnp one-way | framed one-way | bandwidth ratio | every ratio |\n")
	fmt.Fprintf(out, "|---|---|---|---|---|---|---|---|\n")
	for _, c := range cases {
		table := "ping-pong"
		if c.Window > 0 {
			table = "stream"
		}
		oneWay := func(pick func(rmnpbench.Comparison) rmnpbench.Result) rmnpbench.Spread {
			var vs []float64
			for _, r := range c.Runs {
				vs = append(vs, float64(pick(r).OneWay()))
			}
			return rmnpbench.SpreadOf(vs)
		}
		var ratios []float64
		for _, r := range c.Runs {
			ratios = append(ratios, r.Ratio())
		}
		rs := rmnpbench.SpreadOf(ratios)
		every := make([]string, len(rs.Sorted))
		for i, v := range rs.Sorted {
			every[i] = fmt.Sprintf("%.2f", v)
		}
		fmt.Fprintf(out, "| %s | %s | %s | %s | %s | %s | %.2f× / %.2f× / %.2f× | %s |\n", table, c.Transport, sizeLabel(c.Size),
			durSpread(oneWay(func(r rmnpbench.Comparison) rmnpbench.Result { return r.Plain })),
			durSpread(oneWay(func(r rmnpbench.Comparison) rmnpbench.Result { return r.RMNP })),
			durSpread(oneWay(func(r rmnpbench.Comparison) rmnpbench.Result { return r.Framed })),
			rs.Min, rs.Median, rs.Max, strings.Join(every, " "))
	}
}

func durSpread(s rmnpbench.Spread) string {
	d := func(v float64) time.Duration { return time.Duration(v).Round(10 * time.Nanosecond) }
	return fmt.Sprintf("%v / %v / %v", d(s.Min), d(s.Median), d(s.Max))
}

func writeStreamRow(out io.Writer, c rmnpbench.Comparison) {
	plain, framed, rm := c.Plain, c.Framed, c.RMNP
	bp, bf, br := plain.Bandwidth()/1e6, framed.Bandwidth()/1e6, rm.Bandwidth()/1e6
	fmt.Fprintf(out, "| %s | %s | %.0f | %.0f | %.2f× | %.0f | %.2f× | %s |\n",
		plain.Transport, sizeLabel(plain.Size), bp, br, br/bp, bf, br/bf, cpuRatio(plain, rm))
}

// cpuRatio returns RMNP's process CPU time per message over plain's, or "n/a".
func cpuRatio(plain, rm rmnpbench.Result) string {
	if cp, cr := plain.OneWayCPU(), rm.OneWayCPU(); cp > 0 && cr > 0 {
		return fmt.Sprintf("%.2f×", float64(cr)/float64(cp))
	}
	return "n/a"
}

func writeBenchRow(out io.Writer, c rmnpbench.Comparison) {
	plain, framed, rm := c.Plain, c.Framed, c.RMNP
	lp, lf, lr := plain.OneWay(), framed.OneWay(), rm.OneWay()
	bp, br := plain.Bandwidth()/1e6, rm.Bandwidth()/1e6
	cpu := cpuRatio(plain, rm)
	fmt.Fprintf(out, "| %s | %s | %v | %v | %.2f× | %.0f | %.0f | %.2f× | %v | %.2f× | %s |\n",
		plain.Transport, sizeLabel(plain.Size), lp.Round(10*time.Nanosecond), lr.Round(10*time.Nanosecond),
		float64(lr)/float64(lp), bp, br, br/bp, lf.Round(10*time.Nanosecond), float64(lr)/float64(lf), cpu)
}

// benchResultJSON is one kind's best round in --json output (durations in
// seconds, as jsonout writes them).
type benchResultJSON struct {
	OneWay         time.Duration `json:"one_way_seconds"`
	BytesPerSecond float64       `json:"bytes_per_second"`
	RoundTrips     int           `json:"round_trips"`
	Elapsed        time.Duration `json:"elapsed_seconds"`
	CPUPerMessage  time.Duration `json:"cpu_per_message_seconds"`
}

func resultJSON(r rmnpbench.Result) benchResultJSON {
	return benchResultJSON{OneWay: r.OneWay(), BytesPerSecond: r.Bandwidth(), RoundTrips: r.RoundTrips,
		Elapsed: r.Elapsed, CPUPerMessage: r.OneWayCPU()}
}

// benchRunJSON is one run (fresh connections) of a case in --json output.
type benchRunJSON struct {
	Plain  benchResultJSON `json:"plain"`
	Framed benchResultJSON `json:"framed"`
	RMNP   benchResultJSON `json:"rmnp"`
	Ratio  float64         `json:"bandwidth_ratio"`
}

// benchCaseJSON is one table ("ping_pong" or "stream"), transport and size.
type benchCaseJSON struct {
	Table     string         `json:"table"`
	Transport string         `json:"transport"`
	Size      int            `json:"size_bytes"`
	Window    int            `json:"window"`
	Runs      []benchRunJSON `json:"runs"`
}

// writeBenchJSON prints {"cases": [...]}: per table, transport and size, every
// run's plain, framed and rmnp results and their bandwidth ratio.
func writeBenchJSON(out io.Writer, cases []*benchCase) error {
	var doc struct {
		Cases []benchCaseJSON `json:"cases"`
	}
	for _, c := range cases {
		cj := benchCaseJSON{Table: "ping_pong", Transport: c.Transport, Size: c.Size, Window: c.Window}
		if c.Window > 0 {
			cj.Table = "stream"
		}
		for _, r := range c.Runs {
			cj.Runs = append(cj.Runs, benchRunJSON{resultJSON(r.Plain), resultJSON(r.Framed), resultJSON(r.RMNP), r.Ratio()})
		}
		doc.Cases = append(doc.Cases, cj)
	}
	return jsonout.Write(out, doc)
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
