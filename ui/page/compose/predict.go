package compose

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/grid"
	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/predict"
)

// PredictDebounce is how long the Predict panel waits after a change before
// it predicts, so that typing or holding a key predicts once (a variable:
// the tests predict at once).
var PredictDebounce = 200 * time.Millisecond

// maxWhatIfNodes bounds the what-if node count (a prediction of 1024 nodes
// takes well under a second).
const maxWhatIfNodes = 4096

// forecast is the Predict panel of the Compose view: what the composed job
// is expected to do on each scheme (predict.PredictSchemes, dPerf's replay
// of the traces of earlier runs), with what-if network figures and node
// count. Predictions run in a tea.Cmd, off the UI goroutine, the newest
// request only.
type forecast struct {
	res   *jobs.Results     // the results store as the Results view loaded it
	edits map[string]string // network → what-if "bandwidth[,latency]"
	nodes string            // what-if node count; "" = the job's nodes
	// key identifies the request last scheduled; seq counts them, so that
	// a late answer to an older one is dropped.
	key     string
	seq     int
	req     predictRequest
	pending bool
	why     string // why nothing is predicted (the job's problems), "" if it is
	out     *predict.Outlook
	err     error
	took    time.Duration
	// params are bench bsp's g and l (nil: none measured); bspOut is the
	// prediction of a BSP program's job (BSP's cost model, no replay).
	params *predict.BSPParams
	bspOut *predict.BSPPrediction
}

// predictRequest is one prediction the panel asks for.
type predictRequest struct {
	problem predict.Problem
	nodes   int
	// clusters are the cluster of each rank of the job's nodes; nil for a
	// what-if node count (the traced runs' clusters, resized).
	clusters []string
	cores    int
	networks []string
	// topology is the application's neighbour graph on a node count
	// (predict.TopologyOf); not part of the request's key.
	topology func(nodes int) ([][]int, error)
	// inside is the network inside each cluster as the inventory gives it
	// (grid.InsideNetworks), inventory its node count.
	inside    map[string]string
	inventory int
	// bsp marks a BSP program's job: predicted from its traced supersteps
	// with the g and l of the slowest network of pairs (the networks the
	// job's pairs use), on the runs of inv (engine.InventoryKey).
	bsp   bool
	pairs []string
	inv   string
}

// Messages of the Predict panel.
type (
	// predictTickMsg ends the debounce of request seq.
	predictTickMsg struct{ seq int }
	// predictedMsg carries the answer to request seq.
	predictedMsg struct {
		seq  int
		out  *predict.Outlook
		bsp  *predict.BSPPrediction
		err  error
		took time.Duration
	}
)

// SetResults gives the Predict panel the results store's runs (nil: none
// loaded); the next update predicts again from them.
func (v *Model) SetResults(res *jobs.Results) {
	v.fc.res, v.fc.key = res, ""
}

// request is the prediction the composed job asks for, with its key; why
// says why there is none (a job with problems, no nodes).
func (v *Model) request() (r predictRequest, key, why string) {
	if v.formProblems > 0 {
		return r, "", "the job's parameters have problems (below): fix them to predict it"
	}
	s, _ := v.parseSpec()
	p, err := predict.ProblemOf(s)
	if err != nil {
		return r, "", "the job's application refuses its parameters: " + err.Error()
	}
	if r.topology, err = predict.TopologyOf(s); err != nil {
		return r, "", "the job's application refuses its parameters: " + err.Error()
	}
	r.problem, r.cores = p, max(s.Cores, 1)
	v.bspRequest(s, &r)
	if v.inv != nil {
		r.inside, r.inventory = grid.InsideNetworks(v.inv), len(v.inv.Hosts())
	}
	hosts := v.chosen()
	if s.Cores == 0 && len(hosts) > 0 {
		r.cores = max(1, hosts[0].Cores)
	}
	if n, err := strconv.Atoi(v.fc.nodes); err == nil {
		r.nodes = n
	} else {
		for _, h := range hosts {
			r.clusters = append(r.clusters, h.Cluster)
		}
		r.nodes = len(hosts)
	}
	if r.nodes == 0 {
		return r, "", "no nodes chosen: pick some, or set a what-if node count"
	}
	for _, name := range slices.Sorted(maps.Keys(v.fc.edits)) {
		r.networks = append(r.networks, name+"="+v.fc.edits[name])
	}
	k := r
	k.topology = nil // a func prints as its address
	key = fmt.Sprintf("%+v", k)
	return r, key, ""
}

// schedulePrediction starts the debounce of a new prediction when the job,
// its nodes or the what-if figures changed since the last one.
func (v *Model) schedulePrediction() tea.Cmd {
	r, key, why := v.request()
	v.fc.why = why
	if key == v.fc.key || v.inv == nil {
		return nil
	}
	v.fc.key, v.fc.req = key, r
	v.fc.seq++
	if key == "" {
		v.fc.pending, v.fc.out, v.fc.err, v.fc.bspOut = false, nil, nil, nil
		return nil
	}
	v.fc.pending = true
	seq := v.fc.seq
	return tea.Tick(PredictDebounce, func(time.Time) tea.Msg { return predictTickMsg{seq: seq} })
}

// predictCmd predicts the panel's request off the UI goroutine.
func (v *Model) predictCmd(seq int) tea.Cmd {
	res, r, params := v.fc.res, v.fc.req, v.fc.params
	return func() tea.Msg {
		start := time.Now()
		if r.bsp {
			p, err := runBSPPrediction(res, params, r)
			return predictedMsg{seq: seq, bsp: p, err: err, took: time.Since(start)}
		}
		out, err := runPrediction(res, r)
		return predictedMsg{seq: seq, out: out, err: err, took: time.Since(start)}
	}
}

// updateForecast handles the panel's messages.
func (v *Model) updateForecast(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case predictTickMsg:
		if msg.seq == v.fc.seq {
			return v.predictCmd(msg.seq)
		}
	case predictedMsg:
		if msg.seq == v.fc.seq {
			v.fc.out, v.fc.err, v.fc.took, v.fc.pending = msg.out, msg.err, msg.took, false
			v.fc.bspOut = msg.bsp
			v.cursor[panePredict] = min(v.cursor[panePredict], v.paneLen(panePredict)-1)
		}
	}
	return nil
}

// runPrediction predicts every scheme of r: the platform is the traced
// runs' networks with the job's clusters (each with the network its traces
// show, a cluster no run used with a traced one's) or, for a what-if node
// count, the traced clusters resized.
func runPrediction(res *jobs.Results, r predictRequest) (*predict.Outlook, error) {
	req := predict.Request{Problem: r.problem, Nodes: r.nodes, Cores: r.cores, Networks: r.networks, Topology: r.topology,
		Inside: r.inside, InventoryNodes: r.inventory}
	if r.clusters != nil {
		traced, err := predict.PredictSchemes(res, predict.Request{Problem: r.problem, Nodes: r.nodes, Topology: r.topology,
			Inside: r.inside, Schemes: []jobs.Scheme{}})
		if err != nil {
			return nil, err
		}
		req.Clusters = predict.ClustersOf(r.clusters, traced.Platform, r.inside)
	}
	return predict.PredictSchemes(res, req)
}

// predictRows are the panel's editable rows: the networks the platform
// uses (inside its clusters and between them), then the node count.
func (v *Model) predictRows() []string {
	var rows []string
	if o := v.fc.out; o != nil {
		used := map[string]bool{}
		if len(o.Platform.Clusters) > 1 {
			used[o.Platform.Between] = true
		}
		for _, c := range o.Platform.Clusters {
			used[c.Network] = true
		}
		for name := range maps.Keys(o.Platform.Networks) {
			if used[name] {
				rows = append(rows, name)
			}
		}
		slices.Sort(rows)
	}
	return append(rows, "")
}

// predictValue is the text a panel row edits: a network's figures as
// SetNetwork reads them, or the node count.
func (v *Model) predictValue(row int) string {
	rows := v.predictRows()
	if row >= len(rows)-1 {
		if v.fc.nodes != "" {
			return v.fc.nodes
		}
		return strconv.Itoa(len(v.chosen()))
	}
	if e, ok := v.fc.edits[rows[row]]; ok {
		return e
	}
	return networkFigures(v.fc.out.Platform.Networks[rows[row]])
}

// networkFigures writes a network's figures as SetNetwork reads them.
func networkFigures(n predict.Network) string {
	return predict.FormatBandwidth(n.Bandwidth) + "," + n.Latency.String()
}

// setPredictValue keeps an edited row: a network's what-if figures (empty:
// back to the measured ones) or the node count (empty or the job's count:
// the job's nodes). A value predict refuses is reported, not kept.
func (v *Model) setPredictValue(row int, val string) {
	val = strings.TrimSpace(val)
	if strings.HasPrefix(v.status, "what-if ") {
		v.status = "" // an earlier value's refusal: this one is judged afresh
	}
	rows := v.predictRows()
	if row >= len(rows)-1 {
		n, err := strconv.Atoi(val)
		switch {
		case val == "" || (err == nil && n == len(v.chosen()) && v.fc.nodes == ""):
			v.fc.nodes = ""
		case err != nil || n < 1 || n > maxWhatIfNodes:
			v.status = fmt.Sprintf("what-if nodes %q: want a whole number from 1 to %d", val, maxWhatIfNodes)
		default:
			v.fc.nodes = strconv.Itoa(n)
		}
		return
	}
	name := rows[row]
	if val == "" {
		delete(v.fc.edits, name)
		return
	}
	var scratch predict.Platform
	if err := scratch.SetNetwork(name + "=" + val); err != nil {
		v.status = "what-if " + strings.TrimPrefix(strings.TrimPrefix(err.Error(), "predict: "), "platform: ")
		return
	}
	if v.fc.edits == nil {
		v.fc.edits = map[string]string{}
	}
	v.fc.edits[name] = val
}

// errNoTrace tells the panel's "what to run first" apart from failures.
func noTrace(err error) bool { return errors.Is(err, predict.ErrNoTrace) }
