package solve

import (
	"context"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
	"github.com/gridtui/gridtui/apps/obstacle"
	"github.com/gridtui/gridtui/internal/testrod"
)

// ownLoopApp is test-rod (testrod.App) whose parts run their own loop (gridapp.Calculator):
// a fixed number of synchronous iterations over Comm, exchanging with
// Send/Receive as DATA, then a CTRL message to each neighbour. With fault
// "stranger" rank 1 sends to a neighbour index it does not have.
type ownLoopApp struct{ testrod.App }

func init() { gridapp.Register("test-rod-own", ownLoopApp{}) }

func (ownLoopApp) Params() []gridapp.Param {
	return append(testrod.App{}.Params(), gridapp.IntParam("iters", 200, 1, 1<<20, "iterations"),
		gridapp.StringParam("own_fault", "none", []string{"none", "stranger"}, "misbehaviour"))
}

type ownLoopPart struct {
	*testrod.Part
	iters    int
	stranger bool
}

func (a ownLoopApp) NewPart(v gridapp.Values, sub gridapp.Subtask) (gridapp.Part, error) {
	p, err := a.App.NewPart(v, sub)
	if err != nil {
		return nil, err
	}
	return &ownLoopPart{Part: p.(*testrod.Part), iters: v.Int("iters"),
		stranger: v.String("own_fault") == "stranger" && sub.Rank == 1}, nil
}

func (p *ownLoopPart) Calculate(ctx context.Context, c gridapp.Comm) (gridapp.Outcome, error) {
	var out gridapp.Outcome
	for k := 1; k <= p.iters; k++ {
		for i := range p.neighbours() {
			if c.Mode(i) != gridapp.Sync {
				return out, nil
			}
			if err := c.Send(ctx, i, p.Outgoing(i), gridapp.DATA); err != nil {
				return out, err
			}
		}
		if p.stranger && k == 3 {
			if err := c.Send(ctx, 7, p.Outgoing(0), gridapp.DATA); err != nil {
				return out, err
			}
		}
		for i := range p.neighbours() {
			if _, err := c.Receive(ctx, i, p.Halo(i), gridapp.DATA); err != nil {
				return out, err
			}
		}
		out.Sigma = p.Sweep()
		out.Iterations = k
		c.Progress(k, out.Sigma)
	}
	for i := range p.neighbours() {
		if err := c.Send(ctx, i, []float64{1}, gridapp.CTRL); err != nil {
			return out, err
		}
	}
	for i := range p.neighbours() {
		if _, err := c.Receive(ctx, i, make([]float64, 1), gridapp.CTRL); err != nil {
			return out, err
		}
	}
	out.Converged = true
	return out, nil
}

// neighbours returns the number of neighbours (1 or 2 on the rod's chain).
func (p *ownLoopPart) neighbours() int { return p.Neighbours() }

// TestSolveOwnLoop: a part that runs its own loop over Comm computes the
// values of the iteration-level model's synchronous run (bit for bit), and
// one that sends to a neighbour it does not have fails the run naming the
// application.
func TestSolveOwnLoop(t *testing.T) {
	c := chainRun{p: obstacle.Problem{N: 40, Eps: 1e-9}, ranks: 3, cores: 1, scheme: Synchronous, app: "test-rod-own",
		params: map[string]string{"iters": "150"}}
	res, _ := c.run(t)
	var u []float64
	for r := range res {
		if res[r].Iterations != 150 || !res[r].Converged {
			t.Fatalf("rank %d: %d iterations, converged %v", r, res[r].Iterations, res[r].Converged)
		}
		u = append(u, res[r].Values...)
	}
	app, _ := gridapp.Lookup("test-rod")
	v, _ := gridapp.Parse(app.Params(), map[string]string{"n": "40", "eps": "1e-9"})
	ref, err := runLocalFor(app, v, 3, 150)
	if err != nil {
		t.Fatal(err)
	}
	for i := range u {
		if u[i] != ref[i] {
			t.Fatalf("value %d: %v, iteration-level model %v", i, u[i], ref[i])
		}
	}
	c.params = map[string]string{"own_fault": "stranger"}
	_, _, errs := c.runAll(t)
	want := `engine: rank 1: application failed "test-rod-own": neighbour 7 is not one of the part's 2 neighbours`
	if errs[1] == nil || errs[1].Error() != want {
		t.Fatalf("rank 1: %v, want %q", errs[1], want)
	}
}
