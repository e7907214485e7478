package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestBenchRmnpCmd(t *testing.T) {
	cmd := newBenchRmnpCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--sizes", "8,2K", "--rounds", "1", "--round", "1ms", "--min-trips", "5", "--window", "3"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	pingpong, stream, ok := strings.Cut(strings.TrimSpace(out.String()), "\n\nStreaming, 3 messages per acknowledgement:\n\n")
	if !ok {
		t.Fatalf("no streaming table:\n%s", out.String())
	}
	for _, tc := range []struct {
		table string
		seps  int
	}{{pingpong, 12}, {stream, 9}} { // 11 and 8 columns
		lines := strings.Split(tc.table, "\n")
		if len(lines) != 2+4 {
			t.Fatalf("want header + 4 rows:\n%s", tc.table)
		}
		for _, l := range lines {
			if n := strings.Count(l, "|"); n != tc.seps {
				t.Errorf("%d separators, want %d: %q", n, tc.seps, l)
			}
		}
	}
	for _, want := range []string{"| tcp | 8 B |", "| unix | 2 KiB |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestBenchRmnpRuns checks --runs: a row per run in each table, and a spread
// table with a row per table, transport and size listing every run's ratio.
func TestBenchRmnpRuns(t *testing.T) {
	cmd := newBenchRmnpCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--sizes", "8,2K", "--transports", "unix", "--rounds", "1", "--round", "1ms",
		"--min-trips", "3", "--window", "2", "--runs", "3"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	_, spread, ok := strings.Cut(text, "Spread over 3 runs on fresh connections")
	if !ok {
		t.Fatalf("no spread table:\n%s", text)
	}
	if n := strings.Count(text, "\n| unix | 2 KiB |"); n != 6 { // 3 ping-pong rows, 3 stream rows
		t.Errorf("%d rows of 2 KiB, want 6:\n%s", n, text)
	}
	rows := 0
	for _, l := range strings.Split(spread, "\n") {
		if strings.HasPrefix(l, "| ping-pong | unix |") || strings.HasPrefix(l, "| stream | unix |") {
			rows++
			cells := strings.Split(l, "|")
			if every := strings.Fields(cells[len(cells)-2]); len(every) != 3 {
				t.Errorf("want 3 ratios in %q", l)
			}
		}
	}
	if rows != 4 {
		t.Errorf("%d spread rows, want 4:\n%s", rows, spread)
	}
}

// TestBenchRmnpJSON checks --json: every case with its runs and each kind's figures.
func TestBenchRmnpJSON(t *testing.T) {
	cmd := newBenchRmnpCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--sizes", "1K", "--transports", "tcp", "--rounds", "1", "--round", "1ms",
		"--min-trips", "3", "--window", "0", "--runs", "2", "--json"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []struct {
			Table     string `json:"table"`
			Transport string `json:"transport"`
			Size      int    `json:"size_bytes"`
			Window    int    `json:"window"`
			Runs      []struct {
				Plain, Framed, RMNP struct {
					OneWay         float64 `json:"one_way_seconds"`
					BytesPerSecond float64 `json:"bytes_per_second"`
					RoundTrips     int     `json:"round_trips"`
				}
				Ratio float64 `json:"bandwidth_ratio"`
			} `json:"runs"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	if len(doc.Cases) != 1 || doc.Cases[0].Table != "ping_pong" || doc.Cases[0].Size != 1024 || doc.Cases[0].Transport != "tcp" || len(doc.Cases[0].Runs) != 2 {
		t.Fatalf("%+v", doc)
	}
	for _, r := range doc.Cases[0].Runs {
		if r.Plain.OneWay <= 0 || r.Plain.OneWay > 1 || r.RMNP.RoundTrips < 3 || r.Framed.BytesPerSecond <= 0 || r.Ratio <= 0 {
			t.Fatalf("run %+v", r)
		}
	}
}

func TestParseSizes(t *testing.T) {
	tests := []struct {
		name, in string
		want     []int
		err      bool
	}{
		{"default", "8,1K,64K,512K,4M", []int{8, 1024, 64 << 10, 512 << 10, 4 << 20}, false},
		{"zero", "0", nil, true},
		{"junk", "8,x", nil, true},
		{"too big", "65M", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseSizes(tc.in)
			if (err != nil) != tc.err || len(got) != len(tc.want) {
				t.Fatalf("parseSizes(%q) = %v, %v", tc.in, got, err)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("parseSizes(%q) = %v", tc.in, got)
				}
			}
		})
	}
}

// TestBenchRmnpBadFlags checks that bad flags are refused before the table
// header is printed.
func TestBenchRmnpBadFlags(t *testing.T) {
	tests := map[string]struct {
		args []string
		want string
	}{
		"transport": {[]string{"--transports", "tcp,foo"}, `unknown transport "foo"`},
		"empty":     {[]string{"--transports", ""}, `unknown transport ""`},
		"round":     {[]string{"--round", "0s"}, "must be positive"},
		"size":      {[]string{"--sizes", "x"}, "bad size"},
		"window":    {[]string{"--window", "-1"}, "--window at least 0"},
		"runs":      {[]string{"--runs", "0"}, "must be positive"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cmd := newBenchRmnpCmd()
			var out bytes.Buffer
			cmd.SetOut(&out)
			cmd.SetErr(&bytes.Buffer{})
			cmd.SetArgs(tc.args)
			err := cmd.ExecuteContext(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if strings.Contains(out.String(), "| transport |") {
				t.Errorf("header printed before the error:\n%s", out.String())
			}
		})
	}
}
