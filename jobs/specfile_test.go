package jobs

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/internal/tomlfile"
)

func TestParseSpecFiles(t *testing.T) {
	s, err := LoadSpec("../testdata/jobs/default.toml")
	if err != nil {
		t.Fatal(err)
	}
	if s.App != "obstacle" || s.Params["n"] != "48" || s.Params["eps"] != "1e-08" || s.Scheme != Hybrid || s.Detector != DetectActivity ||
		s.Nodes.Any != 8 || s.WallTime != 5*time.Minute || len(s.Nodes.Clusters) != 2 {
		t.Fatalf("default.toml decoded as %+v", s)
	}
	g, err := LoadSpec("../testdata/jobs/groups.toml")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Groups) != 3 || g.Groups[1].Coordinator != "alpha-3" || len(g.Nodes.Hosts) != 6 {
		t.Fatalf("groups.toml decoded as %+v", g)
	}
}

// TestParseSpecObstacleDefaults: a job file of the obstacle problem that
// leaves [obstacle] or its n out gets the application's default n, as it
// gets its ε (it was n = 0, refused with no position, hiding the file's
// real mistakes); an older file's [obstacle] section reads as app =
// "obstacle" with its keys as parameters, and means what the same job
// written with [params] means.
func TestParseSpecObstacleDefaults(t *testing.T) {
	for name, tc := range map[string]struct {
		doc    string
		n, eps string
	}{
		"no section":      {"scheme = \"async\"\n", "48", "1e-08"},
		"eps only":        {"[obstacle]\neps = 1e-6\n", "48", "1e-06"},
		"app, no section": {"app = \"obstacle\"\n", "48", "1e-08"},
		"old section":     {"app = \"obstacle\"\n[obstacle]\nn = 20\neps = 1e-7\n", "20", "1e-07"},
		"params":          {"app = \"obstacle\"\n[params]\nn = 20\neps = 1e-7\n", "20", "1e-07"},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := ParseSpec("job.toml", []byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			_, v, err := s.Application()
			if err != nil || s.App != "obstacle" {
				t.Fatalf("app %q: %v", s.App, err)
			}
			if got := v.Encode(); got["n"] != tc.n || got["eps"] != tc.eps {
				t.Errorf("params %v, want n = %s, eps = %s", got, tc.n, tc.eps)
			}
		})
	}
}

// TestParseSpecOldFile: a job file written before [params] (its
// [obstacle] section) loads as the obstacle application with its
// parameters, and written back it is the same job in [params].
func TestParseSpecOldFile(t *testing.T) {
	old := "name = \"old\"\nscheme = \"sync\"\n\n[obstacle]\nn = 32\neps = 1e-9\n\n[nodes]\nany = 2\n"
	s, err := ParseSpec("old.toml", []byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if s.App != "obstacle" || s.Params["n"] != "32" || s.Params["eps"] != "1e-09" || s.Name != "old" {
		t.Fatalf("old file read as %+v", s)
	}
	data, err := FormatSpec(s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "[obstacle]") || !strings.Contains(string(data), "[params]") {
		t.Errorf("written back with its own section:\n%s", data)
	}
	back, err := ParseSpec("new.toml", data)
	if err != nil || back.Params["n"] != "32" || back.Params["eps"] != "1e-09" {
		t.Errorf("written back and read: %+v (%v)", back, err)
	}
	if _, err := ParseSpec("both.toml", []byte("[obstacle]\nn = 8\n[params]\nn = 9\n")); err == nil {
		t.Error("[obstacle] and [params] together accepted")
	}
}

func TestParseSpecErrors(t *testing.T) {
	tests := map[string]struct {
		doc        string
		line, col  int
		wantInText string
	}{
		"unknown key":               {doc: "app = \"obstacle\"\nschem = \"sync\"\n[obstacle]\nn = 8\n", line: 2, col: 1, wantInText: `unknown key "schem"`},
		"bad scheme":                {doc: "[obstacle]\nn = 8\n\n# c\nscheme = \"fast\"\n", line: 5, col: 1, wantInText: `unknown key "obstacle.scheme"`},
		"n too small, params":       {doc: "scheme = \"sync\"\n[params]\n  n = 0\n", line: 3, col: 3, wantInText: "n: 0 is outside 1…"},
		"bad scheme top":            {doc: "scheme = \"fast\"\n[obstacle]\nn = 8\n", line: 1, col: 1, wantInText: `scheme "fast"`},
		"n too small":               {doc: "scheme = \"sync\"\n[obstacle]\n  n = 0\n", line: 3, col: 3, wantInText: "n: 0 is outside 1…"},
		"wrong type":                {doc: "[obstacle]\nn = \"big\"\n", line: 2, wantInText: "n = \"big\""},
		"syntax":                    {doc: "[obstacle\nn = 3\n", line: 1, wantInText: "[obstacle"},
		"wall time":                 {doc: "wall_time = \"soon\"\n[obstacle]\nn = 8\n", line: 1, col: 1, wantInText: "wall_time"},
		"async with tokens":         {doc: "scheme = \"async\"\ndetector = \"tokens\"\n[obstacle]\nn = 8\n", line: 2, col: 1, wantInText: "tokens is for sync jobs only"},
		"group without coordinator": {doc: "[obstacle]\nn = 8\n[[group]]\nworkers = [\"a\"]\ncoordinator = \"b\"\n", line: 5, col: 1, wantInText: "not one of its workers"},
		"scheme, no [obstacle]":     {doc: "scheme = \"asynch\"\n", line: 1, col: 1, wantInText: `scheme "asynch"`},
		"node in two groups":        {doc: "[obstacle]\nn = 8\n[[group]]\ncoordinator = \"a\"\nworkers = [\"a\"]\n[[group]]\ncoordinator = \"b\"\nworkers = [\"b\", \"a\"]\n", line: 8, col: 1, wantInText: "node a is in groups 0 and 1"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := ParseSpec("job.toml", []byte(tc.doc))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrSpec) {
				t.Errorf("error %v does not wrap ErrSpec", err)
			}
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *SpecError", err)
			}
			if se.Line != tc.line || (tc.col != 0 && se.Col != tc.col) {
				t.Errorf("position %d:%d, want %d:%d (%v)", se.Line, se.Col, tc.line, tc.col, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.wantInText) || !strings.HasPrefix(msg, "jobs: job.toml:") || !strings.Contains(msg, "^") {
				t.Errorf("message %q lacks %q, the file position or the marker", msg, tc.wantInText)
			}
		})
	}
}

// TestSchemeDetectorPairs checks that Validate accepts exactly the pairs
// engine/solve's Solve runs: tokens with sync only, activity and switch with all.
func TestSchemeDetectorPairs(t *testing.T) {
	supported := map[string]bool{
		"sync/tokens": true, "sync/activity": true, "sync/switch": true,
		"async/activity": true, "async/switch": true,
		"hybrid/activity": true, "hybrid/switch": true,
	}
	for _, sc := range []Scheme{Synchronous, Asynchronous, Hybrid} {
		for _, d := range []Detector{DetectTokens, DetectActivity, DetectSwitch} {
			name := string(sc) + "/" + string(d)
			t.Run(name, func(t *testing.T) {
				s := DefaultSpec()
				s.Scheme, s.Detector = sc, d
				err := s.WithDefaults().Validate()
				if got := err == nil; got != supported[name] {
					t.Fatalf("Validate(%s) = %v, want supported=%v", name, err, supported[name])
				}
				if Supported(sc, d) != supported[name] {
					t.Errorf("Supported(%s) = %v", name, !supported[name])
				}
				if err != nil && (!errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), string(d))) {
					t.Errorf("error %v does not wrap ErrSpec or name the detector", err)
				}
			})
		}
	}
}

func TestDefaultSpecValid(t *testing.T) {
	if err := DefaultSpec().WithDefaults().Validate(); err != nil {
		t.Fatal(err)
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, p := range []string{"../testdata/jobs/default.toml", "../testdata/jobs/groups.toml"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte("[obstacle]\nn = 1e400\n"))
	f.Add([]byte("[[group]]\nworkers = []\n"))
	f.Add([]byte("scheme = \"sync\x1b]0;t\x07\"\n"))
	f.Add([]byte("scheme = \"\\u001b[2J\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSpec("fuzz.toml", data)
		if err != nil {
			if !errors.Is(err, ErrSpec) {
				t.Fatalf("error %v does not wrap ErrSpec", err)
			}
			if msg := err.Error(); tomlfile.QuoteMessage(msg) != msg {
				t.Fatalf("error carries control characters: %q", msg)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("accepted spec does not validate: %v", err)
		}
	})
}

// TestParseSpecExplicitValues checks that a key set to 0 is an error where
// leaving it out takes the default.
func TestParseSpecExplicitValues(t *testing.T) {
	tests := map[string]struct {
		doc  string
		line int
		want string // "" when the document is valid
	}{
		"eps zero":         {doc: "[obstacle]\nn = 8\neps = 0\n", line: 3, want: "eps: 0 is outside > 0"},
		"eps dotted":       {doc: "obstacle.n = 8\nobstacle.eps = 0.0\n", line: 2, want: "eps: 0 is outside > 0"},
		"eps zero, params": {doc: "[params]\nn = 8\neps = 0\n", line: 3, want: "eps: 0 is outside > 0"},
		"eps missing":      {doc: "[obstacle]\nn = 8\n"},
		"max iter zero":    {doc: "max_iterations = 0\n[obstacle]\nn = 8\n", line: 1, want: "max_iterations = 0"},
		"wall time zero":   {doc: "wall_time = \"0s\"\n[obstacle]\nn = 8\n", line: 1, want: "wall_time \"0s\" must be positive"},
		"wall negative":    {doc: "wall_time = \"-2m\"\n[obstacle]\nn = 8\n", line: 1, want: "wall_time = -2m0s must not be negative"},
		"spares negative":  {doc: "[obstacle]\nn = 8\n[resilience]\nspares = -1\n", line: 4, want: "resilience.spares = -1 is out of range"},
		"resilience":       {doc: "[obstacle]\nn = 8\n[resilience]\nspares = 1\ncheckpoint_every = 50\n"},
		"host twice":       {doc: "[obstacle]\nn = 8\n[nodes]\nhosts = [\"alpha-1\",\"alpha-1\"]\n", line: 4, want: "alpha-1 is listed twice"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := ParseSpec("job.toml", []byte(tc.doc))
			if tc.want == "" {
				if _, v, verr := s.Application(); err != nil || verr != nil || v.Float("eps") != 1e-8 {
					t.Fatalf("ParseSpec = %v, params %v", err, s.Params)
				}
				return
			}
			var se *SpecError
			if !errors.As(err, &se) || se.Line != tc.line || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q at line %d", err, tc.want, tc.line)
			}
		})
	}
}

// TestParseSpecInlineTableZero: an explicit zero written in an inline table
// is refused like one written under [obstacle].
func TestParseSpecInlineTableZero(t *testing.T) {
	_, err := ParseSpec("job.toml", []byte("obstacle = { n = 8, eps = 0 }\n"))
	var se *SpecError
	if !errors.As(err, &se) || se.Line != 1 || !strings.Contains(se.Msg, "eps: 0 is outside > 0") {
		t.Fatalf("error %v, want obstacle.eps = 0 refused at line 1", err)
	}
}

// TestSpecProblemsListsAll: Problems reports every field at fault, in the
// job file's order, and Validate the first of them.
func TestSpecProblemsListsAll(t *testing.T) {
	s := DefaultSpec().WithDefaults()
	s.Params = map[string]string{"n": "-5"}
	s.Cores, s.MaxIter, s.Nodes.Any = -1, -3, -2
	s.Groups = []Group{{Coordinator: "a"}}
	var keys []string
	for _, p := range s.Problems() {
		keys = append(keys, p.Key)
	}
	want := []string{"params.n", "cores", "max_iterations", "nodes.any", "group[0].workers"}
	if strings.Join(keys, " ") != strings.Join(want, " ") {
		t.Fatalf("problems at %v, want %v", keys, want)
	}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "n: -5 is outside") {
		t.Fatalf("Validate = %v, want the first problem", err)
	}
	if ps := DefaultSpec().WithDefaults().Problems(); len(ps) != 0 {
		t.Fatalf("the default spec has problems: %v", ps)
	}
}

// TestParseSpecReportsEveryProblem checks that a job file's problems come
// back together, in the order of their lines, each at its key — a name
// holding an escape among them.
func TestParseSpecReportsEveryProblem(t *testing.T) {
	data := "name = \"x\\u001b[2J\"\nscheme = \"bogus\"\ncores = -1\nwall_time = \"zz\"\n[obstacle]\nn = 0\n"
	_, err := ParseSpec("bad.toml", []byte(data))
	if err == nil || !errors.Is(err, ErrSpec) {
		t.Fatalf("ParseSpec = %v, want every problem", err)
	}
	msg := err.Error()
	want := []string{"bad.toml:1:8: the value", "bad.toml:2:1: scheme \"bogus\"", "bad.toml:3:1: cores = -1",
		"bad.toml:4:1: wall_time \"zz\"", "bad.toml:6:1: app obstacle"}
	at := 0
	for _, w := range want {
		i := strings.Index(msg[at:], w)
		if i < 0 {
			t.Fatalf("error lacks %q after offset %d:\n%s", w, at, msg)
		}
		at += i + len(w)
	}
	if strings.ContainsRune(msg, 0x1b) {
		t.Errorf("error carries the escape raw: %q", msg)
	}
}
