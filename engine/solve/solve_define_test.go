package solve

import (
	"strconv"
	"testing"

	"github.com/gridtui/gridtui/apps/obstacle"
	"github.com/gridtui/gridtui/rmnp"
)

// definedTasks defines app's task on ranks nodes of cores cores each, as
// the submitter does once, and returns the ranks' PartTasks.
func definedTasks(t testing.TB, app string, params map[string]string, ranks, cores int) []PartTask {
	t.Helper()
	parts, err := DefineLocal(app, params, ranks, cores)
	if err != nil {
		t.Fatal(err)
	}
	return parts
}

// obstacleParams are p's parameters as a job gives them (its defaults
// filled as the serial reference fills them).
func obstacleParams(p obstacle.Problem) map[string]string {
	p = p.WithDefaults()
	return map[string]string{"n": strconv.Itoa(p.N), "eps": strconv.FormatFloat(p.Eps, 'g', -1, 64)}
}

// chainNeighbours are rank r's neighbours on a chain of ranks, the rank
// below first.
func (c chainRun) chainNeighbours(r int) []Neighbour {
	var nbs []Neighbour
	if r > 0 {
		nbs = append(nbs, Neighbour{Rank: r - 1, Peer: rmnp.PeerID(r), Mode: c.mode(r - 1)})
	}
	if r < c.ranks-1 {
		nbs = append(nbs, Neighbour{Rank: r + 1, Peer: rmnp.PeerID(r + 2), Mode: c.mode(r)})
	}
	return nbs
}
