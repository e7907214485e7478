package jobs

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/internal/termsafe"
)

// RecordVersion is the version of the RunRecord layout written by Append.
const RecordVersion = 1

// ResultsFile is the name of the results store inside the data directory.
const ResultsFile = "results.jsonl"

// DataDirEnv overrides the data directory (after an explicit setting).
const DataDirEnv = "GRIDTUI_DATA_DIR"

// Outcomes a RunRecord commonly carries; the engine may record others
// (e.g. "not converged", "aborted").
const (
	OutcomeOK     = "ok"
	OutcomeFailed = "failed"
)

// ErrResults is wrapped by every error of the results store.
var ErrResults = errors.New("jobs: results store")

// RunRecord is one run as the results store keeps it: one JSON line of
// results.jsonl. Every run is recorded, failed ones too.
type RunRecord struct {
	Version int       `json:"v"`
	ID      string    `json:"id"`
	Time    time.Time `json:"time"` // start of the run
	Job     RunConfig `json:"job"`
	Machine Machine   `json:"machine"` // where the console ran

	WallSeconds float64      `json:"wall_seconds"`
	Nodes       []NodeRecord `json:"nodes"`
	// Residuals is the global σ (detector's view) over the run.
	Residuals []ResidualSample `json:"residuals,omitempty"`
	// TrueResidual is σ of one more synchronous sweep of the gathered
	// solution (Residual); nil when the run produced no solution.
	TrueResidual *Float `json:"true_residual,omitempty"`
	// ResidualReported says TrueResidual is instead the largest σ the
	// parts reported (an application that cannot measure its solution).
	ResidualReported bool `json:"residual_reported,omitempty"`
	// Checks are the application's own checks of the solution
	// (gridapp.Checker), as it gave them; none for an application without.
	Checks []CheckRecord `json:"checks,omitempty"`
	// Complementarity is what versions before Checks wrote: the obstacle
	// problem's conditions (and, for every other application, a
	// meaningless zero). Only read: AppChecks turns it into Checks.
	Complementarity *Complementarity `json:"complementarity,omitempty"`

	Outcome string `json:"outcome"` // OutcomeOK, OutcomeFailed, ...
	Reason  string `json:"reason,omitempty"`
	// Recoveries are the lost nodes the run survived; a recovered run's
	// wall time counts them, and prediction treats it as disturbed.
	Recoveries []Recovery `json:"recoveries,omitempty"`
	// Supersteps are a BSP program's supersteps (work and h-relation per
	// group of consecutive supersteps), for BSP prediction; nil for other
	// applications and in older records.
	Supersteps []gridapp.SuperstepGroup `json:"supersteps,omitempty"`
	// WorkerRun is the run's id on its workers' log lines (run=…), which
	// `gridtui logs` cuts the logs with; "" in older records.
	WorkerRun string `json:"worker_run,omitempty"`
}

// CheckRecord is one of the application's checks of a run's solution
// (gridapp.Check): its name, the measured value, whether it held.
type CheckRecord struct {
	Name  string `json:"name"`
	Value Float  `json:"value"`
	OK    bool   `json:"ok"`
	Text  string `json:"text,omitempty"`
}

// Complementarity is the outcome of the obstacle problem's optimality
// check as records written before CheckRecord keep it.
type Complementarity struct {
	MinUMinusPhi float64 // min(u − φ); ≥ −Tol·h²/6 required
	MinAuMinusF  float64 // min(Au − f); ≥ −Tol required
	MaxProduct   float64 // max|(Au − f)(u − φ)|; ≤ Tol required
	Tol          float64 // the tolerance the check used, in units of Au − f
	OK           bool    // all three conditions hold
}

// AppChecks returns the application's checks of the run's solution:
// Checks, or in a record written before them the complementarity
// conditions it kept (those of the obstacle problem, the only ones with a
// tolerance; another application's zero figures are no check).
func (r RunRecord) AppChecks() []CheckRecord {
	c := r.Complementarity
	if r.Checks != nil || c == nil || c.Tol == 0 {
		return r.Checks
	}
	h := 1 / float64(r.Job.N+1)
	lo := c.Tol * h * h / 6
	return []CheckRecord{
		{Name: "complementarity: min u−φ", Value: Float(c.MinUMinusPhi), OK: c.MinUMinusPhi >= -lo, Text: fmt.Sprintf("%.3g (≥ −%.3g)", c.MinUMinusPhi, lo)},
		{Name: "complementarity: min Au−f", Value: Float(c.MinAuMinusF), OK: c.MinAuMinusF >= -c.Tol, Text: fmt.Sprintf("%.3g (≥ −%.3g)", c.MinAuMinusF, c.Tol)},
		{Name: "complementarity: max |(Au−f)(u−φ)|", Value: Float(c.MaxProduct), OK: c.MaxProduct <= c.Tol, Text: fmt.Sprintf("%.3g (≤ %.3g)", c.MaxProduct, c.Tol)},
	}
}

// ChecksOK reports whether every check of AppChecks held (true without
// any).
func (r RunRecord) ChecksOK() bool {
	for _, c := range r.AppChecks() {
		if !c.OK {
			return false
		}
	}
	return true
}

// RunConfig is the job configuration of a recorded run.
type RunConfig struct {
	Name    string  `json:"name,omitempty"`
	App     string  `json:"app"` // "obstacle"
	N       int     `json:"n"`
	Eps     float64 `json:"eps"`
	MaxIter int     `json:"max_iter,omitempty"`
	// Iterations is the job's exact sweep count (Spec.Iterations; 0:
	// until converged): such a run is timed over K sweeps, not to a
	// solution, so it is a problem of its own (Instance).
	Iterations int      `json:"iterations,omitempty"`
	Scheme     Scheme   `json:"scheme"`
	Detector   Detector `json:"detector,omitempty"`
	Nodes      int      `json:"nodes"` // computing nodes b
	Cores      int      `json:"cores"` // cores in total, Σ a over the nodes
	// Grid labels the grid configuration (GridLabel of the clusters used),
	// the column groups of Tables III and IV.
	Grid     string   `json:"grid"`
	Clusters []string `json:"clusters,omitempty"`
	// Inventory is the inventory the nodes came from (InventoryEmbedded, or
	// the absolute path of a sites file); "" in records written before it
	// was kept. Runs of different inventories are never compared: two
	// inventories may name different machines alike (an "alpha" cluster on
	// loopback and one reached over SSH).
	Inventory string `json:"inventory,omitempty"`
	// Params are the checked parameters of an application other than the
	// obstacle problem (defaults included), as text; N and Eps then hold
	// its "n" and "eps" when it declares them.
	Params map[string]string `json:"params,omitempty"`
}

// InventoryEmbedded is RunConfig.Inventory for the embedded local grid.
const InventoryEmbedded = "embedded"

// InventoryName returns how an inventory key reads for a user: "embedded
// local grid", the sites file with the home directory as ~, or "inventory
// not recorded" for records older than the key.
func InventoryName(inv string) string {
	switch inv {
	case "":
		return "inventory not recorded"
	case InventoryEmbedded:
		return "embedded local grid"
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" && strings.HasPrefix(inv, home+string(filepath.Separator)) {
		return "~" + inv[len(home):]
	}
	return inv
}

// Machine describes the host the console ran on.
type Machine struct {
	Host        string `json:"host"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	CPU         string `json:"cpu,omitempty"`
	Cores       int    `json:"cores"`
	MemoryBytes uint64 `json:"memory_bytes,omitempty"`
	GoVersion   string `json:"go,omitempty"`
}

// NodeRecord is one node's share of a recorded run. Stats holds any further
// per-node figures under free names (e.g. "bytes.infiniband", "skipped").
type NodeRecord struct {
	Name           string  `json:"name"`
	Host           string  `json:"host,omitempty"`
	Cluster        string  `json:"cluster,omitempty"`
	Rank           int     `json:"rank"`
	Cores          int     `json:"cores"`
	Iterations     int     `json:"iterations"`
	Sigma          Float   `json:"sigma"`
	ComputeSeconds float64 `json:"compute_seconds,omitempty"`
	SendSeconds    float64 `json:"send_seconds,omitempty"`
	WaitSeconds    float64 `json:"wait_seconds,omitempty"`
	// PeakRSS is the worker process's peak resident set in bytes (0 when
	// unknown, as in records written before it was measured).
	PeakRSS uint64             `json:"peak_rss_bytes,omitempty"`
	Err     string             `json:"error,omitempty"`
	Stats   map[string]float64 `json:"stats,omitempty"`
	// Trace is the node's execution trace for prediction; nil in records
	// written before traces were kept, and for nodes that sent no result.
	Trace *NodeTrace `json:"trace,omitempty"`
}

// ResidualSample is the global σ at one point of a run.
type ResidualSample struct {
	Iteration int     `json:"it"`
	Seconds   float64 `json:"t"` // since the start of the run
	Sigma     Float   `json:"sigma"`
}

// Wall returns the wall time of the run.
func (r RunRecord) Wall() time.Duration {
	// Rounded, not truncated: a wall time read back from its seconds must
	// equal the one recorded (2.031819046 s is 2031819045.9999998 ns).
	return time.Duration(math.Round(r.WallSeconds * float64(time.Second)))
}

// OK reports whether the run completed successfully.
func (r RunRecord) OK() bool { return r.Outcome == OutcomeOK }

// GridLabel returns the grid-configuration label of a set of clusters: the
// distinct names, sorted, joined by "+" (e.g. "graphene+chinqchint" →
// "chinqchint+graphene").
func GridLabel(clusters []string) string {
	seen := map[string]bool{}
	var names []string
	for _, c := range clusters {
		if c != "" && !seen[c] {
			seen[c] = true
			names = append(names, c)
		}
	}
	slices.Sort(names)
	return strings.Join(names, "+")
}

// LocalMachine describes the machine this process runs on, best effort.
func LocalMachine() Machine {
	host, _ := os.Hostname()
	return Machine{
		Host: host, OS: runtime.GOOS, Arch: runtime.GOARCH, CPU: cpuModel(),
		Cores: runtime.NumCPU(), GoVersion: runtime.Version(),
	}
}

// cpuModel returns the CPU model name from /proc/cpuinfo, or "".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// DataDir returns the directory of the results store: setting if not empty
// (a flag or config field), else $GRIDTUI_DATA_DIR, else
// $XDG_DATA_HOME/gridtui, else ~/.local/share/gridtui.
func DataDir(setting string) (string, error) {
	if setting != "" {
		return setting, nil
	}
	if d := os.Getenv(DataDirEnv); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "gridtui"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("%w: no data directory: set %s: %w", ErrResults, DataDirEnv, err)
	}
	return filepath.Join(home, ".local", "share", "gridtui"), nil
}

// NewRecordID returns a fresh run id: the UTC start time and 6 random hex
// digits, sortable by time.
func NewRecordID(t time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return t.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// Append records r as one line of dir/results.jsonl, creating the directory
// and file if needed. It fills r.Version, r.ID and r.Time when they are
// zero. The line is written with a single write on an O_APPEND file and
// synced; if the file ends in a line cut short by a crash, a newline is
// written first so the new record stays readable.
func Append(dir string, r *RunRecord) error {
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	if r.ID == "" {
		r.ID = NewRecordID(r.Time)
	}
	if r.Version == 0 {
		r.Version = RecordVersion
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("%w: encode run %s: %w", ErrResults, r.ID, err)
	}
	line = append(line, '\n')
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%w: %w", ErrResults, err)
	}
	path := filepath.Join(dir, ResultsFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrResults, err)
	}
	if cut, err := endsMidLine(f); err != nil {
		f.Close()
		return fmt.Errorf("%w: %s: %w", ErrResults, path, err)
	} else if cut {
		line = append([]byte{'\n'}, line...)
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return fmt.Errorf("%w: %s: %w", ErrResults, path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("%w: %s: %w", ErrResults, path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrResults, path, err)
	}
	return nil
}

// endsMidLine reports whether f is non-empty and its last byte is not '\n'.
func endsMidLine(f *os.File) (bool, error) {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false, err
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], st.Size()-1); err != nil {
		return false, err
	}
	return last[0] != '\n', nil
}

// ErrBadRecord is wrapped by the error of a line that is valid JSON but no
// run record (null, {}, a record without id or problem size).
var ErrBadRecord = errors.New("not a run record")

// check rejects JSON that decoded into an empty or meaningless record:
// Append always writes an id, and the problem size of the obstacle problem
// (an application that declares no n, such as sparse or exec, records 0).
func (r *RunRecord) check() error {
	switch {
	case r.ID == "":
		return fmt.Errorf("%w: no id", ErrBadRecord)
	case r.Job.N < 0 || (r.Job.N == 0 && r.Job.Instance().App == "obstacle"):
		return fmt.Errorf("%w: %s: problem size n = %d", ErrBadRecord, r.ID, r.Job.N)
	}
	return nil
}

// LineError is a corrupt line of the results store.
type LineError struct {
	Path string
	Line int // 1-based
	Err  error
}

// maxCauseLen bounds what a corrupt line's error echoes of it: a line of
// 20 MB is named, not printed.
const maxCauseLen = 200

// Error formats the error as "jobs: results store: path:line: cause", the
// cause cut to 200 bytes and its control characters quoted (a line may
// hold anything).
func (e *LineError) Error() string {
	cause := e.Err.Error()
	if len(cause) > maxCauseLen {
		cut := maxCauseLen
		for cut > 0 && !utf8.RuneStart(cause[cut]) {
			cut--
		}
		cause = fmt.Sprintf("%s… (%d bytes more)", cause[:cut], len(cause)-cut)
	}
	return fmt.Sprintf("%v: %s:%d: %s", ErrResults, e.Path, e.Line, termsafe.Line(cause))
}

// Unwrap returns the decoding error.
func (e *LineError) Unwrap() error { return e.Err }

// Results is the content of a results store.
type Results struct {
	Path    string
	Records []RunRecord
	// Corrupt lists the lines that could not be decoded; they are skipped.
	Corrupt []*LineError
	// Truncated is set when the last line was cut short (no final newline
	// and not decodable): the trace of a crash during Append, skipped.
	Truncated bool
}

// Err joins the corrupt-line errors, or returns nil.
func (r *Results) Err() error {
	errs := make([]error, len(r.Corrupt))
	for i, e := range r.Corrupt {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// Load reads dir/results.jsonl. A missing file is an empty store. Corrupt
// lines are skipped and reported in Results.Corrupt with their line numbers;
// the error is only for failures to read the file.
func Load(dir string) (*Results, error) {
	path := filepath.Join(dir, ResultsFile)
	res := &Results{Path: path}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrResults, err)
	}
	defer f.Close()
	if err := res.read(f); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrResults, path, err)
	}
	return res, nil
}

// read decodes the lines of r into res.
func (res *Results) read(r io.Reader) error {
	br := bufio.NewReaderSize(r, 1<<16)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return err
		}
		complete := len(line) > 0 && line[len(line)-1] == '\n'
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			var rec RunRecord
			derr := json.Unmarshal(trimmed, &rec)
			if derr == nil {
				derr = rec.check()
				complete = true // whole JSON: never a cut-off tail
			}
			switch {
			case derr == nil:
				res.Records = append(res.Records, rec)
			case complete:
				res.Corrupt = append(res.Corrupt, &LineError{Path: res.Path, Line: lineNo, Err: derr})
			default:
				res.Truncated = true
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// SingleNodeReference returns the single-node run that gives t1 of the
// computing gain C_g = t1/ts (GRIDHPC eq. 2) for a run of grid configuration
// grid on inventory inv of the obstacle problem (n, eps): see
// SingleNodeReferenceOf.
func (r *Results) SingleNodeReference(n int, eps float64, inv, grid string) (RunRecord, bool) {
	return reference(r.Records, ObstacleInstance(n, eps), inv, grid)
}

// SingleNodeReferenceOf returns the single-node run that gives t1 for a run
// of the instance in of grid configuration grid on inventory inv, with its
// residual history for live estimates: the fastest successful single-node
// run of the same application with the same parameters on that grid
// configuration, else on any configuration of that inventory (as GRIDHPC
// measures its two-cluster columns against one Graphene node). It is the
// same t1 as Table IV's (BuildTableOf).
func (r *Results) SingleNodeReferenceOf(in Instance, inv, grid string) (RunRecord, bool) {
	return reference(r.Records, in, inv, grid)
}

// FastestSingleNode returns t1, the wall time of SingleNodeReference.
func (r *Results) FastestSingleNode(n int, eps float64, inv, grid string) (t1 time.Duration, ok bool) {
	rec, ok := r.SingleNodeReference(n, eps, inv, grid)
	return rec.Wall(), ok
}

// ComputingGain returns C_g = t1/ts (GRIDHPC eq. 2), or 0 if ts ≤ 0.
func ComputingGain(t1, ts time.Duration) float64 {
	if ts <= 0 {
		return 0
	}
	return t1.Seconds() / ts.Seconds()
}

// reference is SingleNodeReferenceOf over recs.
func reference(recs []RunRecord, in Instance, inv, grid string) (RunRecord, bool) {
	if rec, ok := fastestSingle(recs, in, inv, grid, false); ok {
		return rec, true
	}
	return fastestSingle(recs, in, inv, "", true)
}

// fastestSingle finds the fastest ok single-node obstacle run of (n, eps)
// on inventory inv, restricted to grid unless anyGrid.
func fastestSingle(recs []RunRecord, in Instance, inv, grid string, anyGrid bool) (RunRecord, bool) {
	var best RunRecord
	found := false
	for _, rec := range recs {
		if !matches(rec, in) || rec.Job.Nodes != 1 || rec.Job.Inventory != inv || !(anyGrid || rec.Job.Grid == grid) {
			continue
		}
		if !found || rec.WallSeconds < best.WallSeconds {
			best, found = rec, true
		}
	}
	return best, found
}

// matches reports whether rec is a successful run of the instance with a
// positive wall time.
func matches(rec RunRecord, in Instance) bool {
	return rec.OK() && in.Has(rec.Job) && rec.WallSeconds > 0
}
