package jsonout

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"FailedNode": "failed_node", "PeakRSS": "peak_rss", "AAddr": "a_addr", "T1": "t1",
		"NICs": "nics", "Iterations": "iterations", "RecordID": "record_id", "GlobalSigma": "global_sigma",
		"VTI": "vti", "SpeedMbps": "speed_mbps", "HTTPServer": "http_server", "n": "n",
	} {
		if got := SnakeCase(in); got != want {
			t.Errorf("SnakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

type state int

func (s state) MarshalText() ([]byte, error) { return []byte("active"), nil }

type inner struct {
	MaxIter int `toml:"max_iterations"`
}

type embedded struct{ Host string }

type sample struct {
	embedded
	Outcome  string
	PeakRSS  uint64
	Wall     time.Duration
	Limit    time.Duration `json:"limit"`
	Tagged   int           `json:"tagged_key"`
	Skipped  int           `json:"-"`
	Empty    string        `json:"empty,omitempty"`
	NaN      float64
	State    state
	Addr     netip.Addr
	Spec     inner
	ByNode   map[string]inner
	Nodes    []embedded
	Nothing  *inner
	At       time.Time
	private  int
	Warnings []string
	Err      error
	NoErr    error
}

func TestMarshal(t *testing.T) {
	v := sample{
		embedded: embedded{"alpha-1"}, Outcome: "ok", PeakRSS: 7, Wall: 1500 * time.Millisecond, Limit: time.Second,
		Tagged: 3, Skipped: 4, NaN: 0 / zero, Addr: netip.MustParseAddr("127.16.64.10"), Spec: inner{9},
		ByNode: map[string]inner{"Beta-2": {1}, "alpha-1": {2}}, Nodes: []embedded{{"x"}},
		At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), private: 5, Err: errors.New("deploy: alpha-1: refused"),
	}
	b, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"host":"alpha-1","outcome":"ok","peak_rss":7,"wall_seconds":1.5,"limit":1,"tagged_key":3,` +
		`"na_n":null,"state":"active","addr":"127.16.64.10","spec":{"max_iterations":9},` +
		`"by_node":{"Beta-2":{"max_iterations":1},"alpha-1":{"max_iterations":2}},"nodes":[{"host":"x"}],` +
		`"nothing":null,"at":"2026-01-02T03:04:05Z","warnings":null,"err":"deploy: alpha-1: refused","no_err":null}`
	if string(b) != want {
		t.Errorf("Marshal:\n got %s\nwant %s", b, want)
	}
	if _, err := Marshal(struct{ F func() }{}); err == nil || !strings.Contains(err.Error(), "func") {
		t.Errorf("Marshal of a func: %v", err)
	}
}

var zero float64

// TestUnitsAndUnknowns: a duration named by a toml key says its unit
// (wall_time_seconds), a json name is kept as given, and a nullzero field
// that is zero is null (unknown), not 0.
func TestUnitsAndUnknowns(t *testing.T) {
	v := struct {
		WallTime time.Duration `toml:"wall_time"`
		T1       time.Duration `json:"t1_seconds,nullzero"`
		Gain     float64       `json:",nullzero"`
		Known    float64       `json:",nullzero"`
	}{WallTime: 300 * time.Second, Known: 2}
	b, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"wall_time_seconds":300,"t1_seconds":null,"gain":null,"known":2}`; string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
}
