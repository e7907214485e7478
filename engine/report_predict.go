package engine

import (
	"strings"

	"github.com/gridtui/gridtui/jobs"
	"github.com/gridtui/gridtui/predict"
)

// setPrediction predicts the run from the runs in the store before it, on
// the run's own clusters (rank order) and the traced networks; nothing when
// the store holds no usable trace of its problem.
func setPrediction(rep *Report, s *submission, dir string) {
	res, err := loadResults(dir)
	if err != nil || res == nil {
		return
	}
	sp := rep.Spec
	if _, ok := s.plan.App.(interface{ Supersteps() }); ok {
		setBSPPrediction(rep, s, res, dir)
		return
	}
	// The problem as the run's record names it (n and ε from the
	// application's parameters), its graph as the application laid it out.
	c := jobs.RunConfig{App: sp.App}
	recordParams(&c, sp)
	topology, _ := predict.TopologyOf(sp)
	m, err := predict.BuildWith(res, predict.Problem{App: c.App, N: c.N, Eps: c.Eps, Params: c.Instance().ParamKey()}, predict.Options{Topology: topology})
	if err != nil {
		return // the store has no trace of the problem: nothing to say
	}
	if sp.Scheme != jobs.Synchronous && m.Staleness.Runs == 0 {
		rep.Unpredicted = "no asynchronous or hybrid run of this problem was traced before (the staleness model needs one): this run is the first"
		if m.SyncIterations == 0 {
			rep.Unpredicted = "no synchronous run of this problem was traced before (the staleness model needs one): run it once with --scheme sync"
		}
		return
	}
	ranks, inside := rankClusters(s.plan)
	pl := predict.PlatformWith(res, m, len(rep.Nodes), inside)
	pl.Clusters = predict.ClustersOf(ranks, pl, inside)
	cores := 0
	for _, n := range rep.Nodes {
		cores = max(cores, n.Cores)
	}
	graph := make([][]int, len(s.plan.Task.Parts))
	for i, part := range s.plan.Task.Parts {
		graph[i] = part.Neighbours
	}
	if len(graph) != pl.Nodes() {
		graph = nil
	}
	p, err := predict.Predict(m, pl, predict.Job{Scheme: sp.Scheme, Cores: cores, Graph: graph})
	if err != nil {
		rep.Unpredicted = strings.TrimPrefix(err.Error(), "predict: ")
		return
	}
	rep.Predicted = &Prediction{Seconds: p.Seconds, MeanIterations: p.MeanIterations, Sources: len(m.Sources)}
}

// rankClusters is the cluster of each of the plan's ranks, in rank order,
// and the network the Htable routes inside each cluster (between its first
// two ranks; none for a cluster of one rank).
func rankClusters(p *Plan) (ranks []string, inside map[string]string) {
	ranks = make([]string, len(p.Ranks))
	first := map[string]string{}
	inside = map[string]string{}
	for i, name := range p.Ranks {
		node, _ := p.Htable.Node(name)
		ranks[i] = node.Cluster
		other, seen := first[node.Cluster]
		if !seen {
			first[node.Cluster] = name
			continue
		}
		if _, known := inside[node.Cluster]; !known {
			if r, err := p.Htable.Route(other, name); err == nil {
				inside[node.Cluster] = string(r.Network)
			}
		}
	}
	return ranks, inside
}
