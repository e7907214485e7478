package jobs

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/internal/tomlfile"
)

// MaxGroupSize is the largest number of workers one coordinator serves
// (P2PDC and GRIDHPC Sec. IV-B: at most 32).
const MaxGroupSize = 32

// ErrSpec is wrapped by every job-spec validation error.
var ErrSpec = errors.New("jobs: invalid job spec")

// SpecError is a job-file error with its position: file:line:col, the
// offending line and a marker under the column.
type SpecError struct {
	File string
	Line int // 1-based; 0 when the error has no position
	Col  int // 1-based
	Msg  string
	Text string // the offending line, when known
}

// Error formats the error as "jobs: file:line:col: msg" followed by the line
// and a caret marker, control characters from the file quoted (\x1b).
func (e *SpecError) Error() string {
	var b strings.Builder
	b.WriteString("jobs: ")
	b.WriteString(tomlfile.Quote(e.File))
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	b.WriteString(tomlfile.QuoteMessage(e.Msg))
	if e.Text != "" {
		text, pad := tomlfile.Excerpt(e.Text, e.Col)
		fmt.Fprintf(&b, "\n  %s\n  %s^", text, strings.Repeat(" ", pad))
	}
	return b.String()
}

// Unwrap lets errors.Is(err, ErrSpec) match.
func (e *SpecError) Unwrap() error { return ErrSpec }

// specFile is the job-file schema, read by ParseSpec and written by
// FormatSpec: Spec with the wall time as text ("90s", "5m"). Its fields are
// in the order a written file lists them.
type specFile struct {
	Name     string   `toml:"name"`
	App      string   `toml:"app"`
	Scheme   Scheme   `toml:"scheme"`
	Detector Detector `toml:"detector,omitempty"`
	Cores    int      `toml:"cores"`
	MaxIter  int      `toml:"max_iterations"`
	// Iterations: Spec.Iterations, written only when set.
	Iterations int    `toml:"iterations,omitempty"`
	WallTime   string `toml:"wall_time"`
	// Obstacle is the [obstacle] section of job files written before
	// [params]: app = "obstacle" with these parameters. Never written.
	Obstacle *legacySection `toml:"obstacle,omitempty"`
	Params   map[string]any `toml:"params,omitempty"` // strings, numbers or booleans
	Nodes    NodeSelection  `toml:"nodes"`
	Groups   []Group        `toml:"group,omitempty"`
	Output   Output         `toml:"output,omitempty"`
	Sweep    map[string]any `toml:"sweep,omitempty"` // arrays, ranges, @files
	// Resilience is written only when it differs from the defaults.
	Resilience *Resilience `toml:"resilience,omitempty"`
}

// legacySection is the [obstacle] section of older job files: the obstacle
// application's n and eps, typed.
type legacySection struct {
	N   *int     `toml:"n,omitempty"`
	Eps *float64 `toml:"eps,omitempty"`
}

// legacyApp is the application an [obstacle] section names.
const legacyApp = "obstacle"

// params returns the section as the application's parameters.
func (l *legacySection) params() map[string]string {
	p := map[string]string{}
	if l.N != nil {
		p["n"] = strconv.Itoa(*l.N)
	}
	if l.Eps != nil {
		p["eps"] = strconv.FormatFloat(*l.Eps, 'g', -1, 64)
	}
	return p
}

// DefaultSpec is the job `gridtui run` runs with no arguments: the obstacle
// problem at n = 48, ε = 1e-8, hybrid iterations on 8 nodes of the local grid
// (alpha + beta), one core each. It finishes in seconds on two cores.
func DefaultSpec() Spec {
	return Spec{
		Name:     "default",
		App:      "obstacle",
		Params:   map[string]string{"n": "48", "eps": "1e-08"},
		Scheme:   Hybrid,
		Nodes:    NodeSelection{Any: 8},
		Cores:    1,
		MaxIter:  200000,
		WallTime: 5 * time.Minute,
	}
}

// LoadSpec reads and validates a job file.
func LoadSpec(path string) (Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Spec{}, fmt.Errorf("jobs: read job file %s: %w", path, err)
	}
	s, err := ParseSpec(path, data)
	if err != nil {
		return s, err
	}
	if err := checkSweepAt(path, data, s); err != nil {
		return Spec{}, err
	}
	if abs, err := filepath.Abs(path); err == nil {
		s = s.AbsPaths(filepath.Dir(abs)) // a file parameter is relative to the job file
	}
	return s, nil
}

// ParseSpec decodes a job file strictly (unknown keys are errors) and
// validates it; file names the source in errors. Missing fields take the
// defaults of DefaultSpec except the node selection. The error reports every
// problem the file has at once, each a *SpecError at its key (errors.Join:
// errors.As finds the first).
func ParseSpec(file string, data []byte) (Spec, error) {
	var f specFile
	var errs []error
	decoded := true
	for _, p := range tomlfile.Decode(data, &f) {
		errs = append(errs, specError(file, p))
		decoded = decoded && p.Control
	}
	if !decoded {
		return Spec{}, errors.Join(errs...)
	}
	params, err := paramsText(file, data, f.Params)
	if err != nil {
		errs = append(errs, err)
	}
	s := Spec{
		Name: f.Name, App: f.App, Params: params, Scheme: f.Scheme,
		Detector: f.Detector, Nodes: f.Nodes, Cores: f.Cores, Groups: f.Groups,
		MaxIter: f.MaxIter, Iterations: f.Iterations, Output: f.Output,
	}
	if s.Sweep, err = sweepSection(file, data, f.Sweep); err != nil {
		return Spec{}, err // checked against the job once it is whole: checkSweepAt
	}
	if f.Resilience != nil {
		s.Resilience = *f.Resilience
	}
	switch {
	case f.Obstacle != nil && f.App != "" && f.App != legacyApp:
		errs = append(errs, keyError(file, data, "obstacle", fmt.Sprintf("[obstacle] is the obstacle problem's; app %s takes its parameters in [params]", f.App)))
	case f.Obstacle != nil && f.Params != nil:
		errs = append(errs, keyError(file, data, "obstacle", "[obstacle] and [params] both give parameters: keep [params] only"))
	case f.Obstacle != nil:
		s.App, s.Params = legacyApp, f.Obstacle.params()
	}
	if f.WallTime != "" {
		d, err := time.ParseDuration(f.WallTime)
		if err != nil {
			errs = append(errs, keyError(file, data, "wall_time", fmt.Sprintf("wall_time %q is not a duration like \"90s\" or \"5m\"", f.WallTime)))
		}
		s.WallTime = d
	}
	for _, err := range explicitZeros(file, data, s) {
		if !reported(errs, err) {
			errs = append(errs, err)
		}
	}
	s = s.WithDefaults()
	for _, p := range s.Problems() {
		path := p.Key
		if name, ok := strings.CutPrefix(path, "params."); ok && f.Obstacle != nil {
			path = "obstacle." + name // where an older file wrote it
		}
		if err := keyError(file, data, path, p.Msg); !reported(errs, err) {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		slices.SortStableFunc(errs, byLine)
		return Spec{}, errors.Join(errs...)
	}
	return s, nil
}

// byLine orders a file's errors as its lines (unpositioned ones last).
func byLine(a, b error) int {
	var x, y *SpecError
	errors.As(a, &x)
	errors.As(b, &y)
	line := func(e *SpecError) int {
		if e == nil || e.Line == 0 {
			return math.MaxInt
		}
		return e.Line
	}
	return cmp.Compare(line(x), line(y))
}

// reported says whether errs already holds a problem at err's position: a
// value refused while reading is not refused again by Validate.
func reported(errs []error, err error) bool {
	var at *SpecError
	if !errors.As(err, &at) || at.Line == 0 {
		return false
	}
	for _, e := range errs {
		var se *SpecError
		if errors.As(e, &se) && se.Line == at.Line && se.Col == at.Col {
			return true
		}
	}
	return false
}

// paramsText reads [params] as the text gridapp.Parse checks: a string as
// written, a number or boolean as TOML wrote it (n = 32 is n = "32"), so
// that a job file need not quote numbers. Arrays, tables and dates are
// refused at their key.
func paramsText(file string, data []byte, raw map[string]any) (map[string]string, error) {
	if raw == nil {
		return nil, nil
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		switch v := v.(type) {
		case string:
			out[k] = v
		case int64:
			out[k] = strconv.FormatInt(v, 10)
		case float64:
			out[k] = strconv.FormatFloat(v, 'g', -1, 64)
		case bool:
			out[k] = strconv.FormatBool(v)
		default:
			return nil, keyError(file, data, "params."+k, fmt.Sprintf("params.%s: want a string, a number or a boolean, not %s", k, tomlKind(v)))
		}
	}
	return out, nil
}

// tomlKind names the TOML type go-toml decoded v from.
func tomlKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return "a date or time"
}

// WithDefaults fills what a job left empty: the default application (with
// its default parameters, when the job gives none), the scheme's default
// detector, limits, and a name: the application, its n when it declares
// one, and the scheme.
func (s Spec) WithDefaults() Spec {
	d := DefaultSpec()
	if s.App == "" {
		s.App = d.App
	}
	if s.Scheme == "" {
		s.Scheme = d.Scheme
	}
	if s.Detector == "" {
		s.Detector = DefaultDetector(s.Scheme)
	}
	if s.MaxIter == 0 {
		s.MaxIter = d.MaxIter
	}
	if s.WallTime == 0 {
		s.WallTime = d.WallTime
	}
	if s.Name == "" {
		s.Name = s.App + "-" + string(s.Scheme)
		if _, v, err := s.Application(); err == nil && v.Declares("n", gridapp.Int) {
			s.Name = fmt.Sprintf("%s-n%d-%s", s.App, v.Int("n"), s.Scheme)
		}
	}
	return s
}

// DefaultDetector is the termination detector a scheme uses unless the job
// names one: tokens for synchronous runs, the activity graph otherwise.
func DefaultDetector(s Scheme) Detector {
	if s == Synchronous {
		return DetectTokens
	}
	return DetectActivity
}

// Supported reports whether the engine runs scheme with detector: the
// convergence tokens only over synchronous links (a sync job), the activity
// graph and the timed switch with every scheme (engine/solve's Solve).
func Supported(scheme Scheme, det Detector) bool {
	switch det {
	case DetectTokens:
		return scheme == Synchronous
	case DetectActivity, DetectSwitch:
		return scheme == Synchronous || scheme == Asynchronous || scheme == Hybrid
	}
	return false
}

// fieldError is a validation error tied to one key of the job file, by its
// indexed path ("obstacle.n", "group[1].coordinator").
type fieldError struct {
	path, msg string
}

func (e *fieldError) Error() string { return "jobs: " + tomlfile.QuoteMessage(e.msg) }
func (e *fieldError) Unwrap() error { return ErrSpec }

func bad(path, format string, args ...any) error {
	return &fieldError{path: path, msg: fmt.Sprintf(format, args...)}
}

// Validate checks a spec; the error names the field (the first of
// Problems). It does not know the inventory: node counts against live
// workers are checked when planning.
func (s Spec) Validate() error {
	if ps := s.Problems(); len(ps) > 0 {
		return &fieldError{path: ps[0].Key, msg: ps[0].Msg}
	}
	return nil
}

// Problem is one thing wrong with a spec: the job-file key it concerns
// ("obstacle.n", "group[1].coordinator") and what is wrong, naming the value.
type Problem struct {
	Key, Msg string
}

// Problems lists everything wrong with a spec, in the order of the job
// file's keys, so that a form can show them all at once.
func (s Spec) Problems() []Problem {
	var ps []Problem
	add := func(key, format string, args ...any) {
		ps = append(ps, Problem{Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	if app, _, err := s.Application(); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			add(fe.path, "%s", fe.msg)
		} else {
			add("params", "%v", err)
		}
	} else if msg := s.Output.refused(s.App, app); msg != "" {
		add("output", "%s", msg)
	}
	schemeOK := true
	switch s.Scheme {
	case Synchronous, Asynchronous, Hybrid:
	default:
		schemeOK = false
		add("scheme", "scheme %q is unknown (want sync, async or hybrid)", s.Scheme)
	}
	switch s.Detector {
	case DetectTokens, DetectActivity, DetectSwitch:
		if schemeOK && !Supported(s.Scheme, s.Detector) {
			add("detector", "detector %q does not run with scheme %q: tokens is for sync jobs only; async and hybrid jobs use activity or switch", s.Detector, s.Scheme)
		}
	default:
		add("detector", "detector %q is unknown (want tokens, activity or switch)", s.Detector)
	}
	if s.Cores < 0 || s.Cores > 1024 {
		add("cores", "cores = %d is out of range (0 = all of each host, up to 1024)", s.Cores)
	}
	if s.MaxIter < 0 {
		add("max_iterations", "max_iterations = %d must not be negative", s.MaxIter)
	}
	if s.Iterations < 0 {
		add("iterations", "iterations = %d must not be negative (0: until converged)", s.Iterations)
	}
	if s.Iterations > 0 && s.MaxIter > 0 && s.Iterations > s.MaxIter {
		add("iterations", "iterations = %d exceeds max_iterations = %d: the limit would stop the run first", s.Iterations, s.MaxIter)
	}
	if r := s.Resilience; r.Spares < 0 || r.Spares > 1024 {
		add("resilience.spares", "resilience.spares = %d is out of range (0 to 1024)", r.Spares)
	}
	if r := s.Resilience; r.MaxRecoveries < 0 {
		add("resilience.max_recoveries", "resilience.max_recoveries = %d must not be negative", r.MaxRecoveries)
	}
	if s.WallTime < 0 {
		add("wall_time", "wall_time = %s must not be negative", s.WallTime)
	}
	if h := duplicateHost(s.Nodes.Hosts); h != "" {
		add("nodes.hosts", "nodes.hosts: %s is listed twice", h)
	}
	if s.Nodes.Any < 0 {
		add("nodes.any", "nodes.any = %d must not be negative", s.Nodes.Any)
	}
	if err := s.validateGroups(); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			add(fe.path, "%s", fe.msg)
		}
	}
	return ps
}

// validateGroups checks the hierarchy; groups are numbered from 0, as in
// their keys (group[0]) and the run's log and report.
func (s Spec) validateGroups() error {
	seen := map[string]int{}
	for i, g := range s.Groups {
		if g.Coordinator == "" {
			return bad(fmt.Sprintf("group[%d].coordinator", i), "group %d has no coordinator", i)
		}
		if len(g.Workers) == 0 {
			return bad(fmt.Sprintf("group[%d].workers", i), "group %d (coordinator %s) has no workers", i, g.Coordinator)
		}
		if len(g.Workers) > MaxGroupSize {
			return bad(fmt.Sprintf("group[%d].workers", i), "group %d (coordinator %s) has %d workers; a coordinator serves at most %d", i, g.Coordinator, len(g.Workers), MaxGroupSize)
		}
		in := false
		for _, w := range g.Workers {
			if j, dup := seen[w]; dup {
				return bad(fmt.Sprintf("group[%d].workers", i), "node %s is in groups %d and %d", w, j, i)
			}
			seen[w] = i
			in = in || w == g.Coordinator
		}
		if !in {
			return bad(fmt.Sprintf("group[%d].coordinator", i), "group %d: coordinator %s is not one of its workers", i, g.Coordinator)
		}
	}
	return nil
}

// specError renders a located problem of a job file.
func specError(file string, p tomlfile.Problem) *SpecError {
	msg := p.Msg
	if p.Unknown {
		msg = fmt.Sprintf("unknown key %q", p.Key)
	}
	return &SpecError{File: file, Line: p.Line, Col: p.Col, Text: p.Text, Msg: msg}
}

// keyError points a semantic error at its key path in the document.
func keyError(file string, data []byte, path, msg string) error {
	return specError(file, tomlfile.At(data, path, msg))
}
