package predict

import (
	"fmt"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/jobs"
)

// TopologyOf is the neighbour graph of spec's application on a node count,
// as the application's Define lays its parts out (dPerf finds it by
// static analysis; a gridapp application says it): for Options.Topology
// and Request.Topology. A node count the application cannot split its
// problem over is an error naming the application.
func TopologyOf(spec jobs.Spec) (func(nodes int) ([][]int, error), error) {
	app, v, err := spec.Application()
	if err != nil {
		return nil, err
	}
	return func(n int) ([][]int, error) {
		nodes := make([]gridapp.Node, n)
		for i := range nodes {
			nodes[i] = gridapp.Node{Name: fmt.Sprintf("node-%d", i+1), Cluster: "cluster", Cores: 1}
		}
		t, err := define(app, v, nodes)
		if err != nil {
			return nil, err
		}
		if len(t.Parts) != n {
			return nil, fmt.Errorf("application %s defined %d parts for %d nodes", spec.App, len(t.Parts), n)
		}
		g := make([][]int, n)
		for i, p := range t.Parts {
			g[i] = p.Neighbours
		}
		return g, nil
	}, nil
}

// define calls the application's Define, a panic becoming an error.
func define(app gridapp.Application, v gridapp.Values, nodes []gridapp.Node) (t gridapp.Task, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic in Define: %v", r)
		}
	}()
	return app.Define(v, nodes)
}
