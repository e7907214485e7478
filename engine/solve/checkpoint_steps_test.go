package solve

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/gridtui/gridtui/internal/checkpoint"
)

// memCopies is a CopyStore in the test's memory: every checkpoint saved
// or kept, the newest by iteration.
type memCopies struct {
	mu   sync.Mutex
	kept []checkpoint.Header
	enc  [][]byte
}

func (m *memCopies) Save(h checkpoint.Header, enc []byte) error { m.Keep(h, enc); return nil }
func (m *memCopies) Buffer(n int) []byte                        { return make([]byte, 0, n) }
func (m *memCopies) None(string)                                {}

func (m *memCopies) Keep(h checkpoint.Header, enc []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.kept, m.enc = append(m.kept, h), append(m.enc, enc)
}

func (m *memCopies) Load(want checkpoint.Header, it uint64, latest bool) (checkpoint.Header, []byte, []string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	i := -1
	for j, h := range m.kept {
		if latest && (i < 0 || h.Iteration > m.kept[i].Iteration) || !latest && h.Iteration == it {
			i = j
		}
	}
	if i < 0 {
		return checkpoint.Header{}, nil, nil, fmt.Errorf("no checkpoint of iteration %d", it)
	}
	h, payload, err := checkpoint.Verify(m.enc[i], want, it, latest, 1<<30, "the test's memory")
	return h, payload, nil, err
}

// iterations are the iterations kept, oldest first.
func (m *memCopies) iterations() []uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var its []uint64
	for _, h := range m.kept {
		its = append(its, h.Iteration)
	}
	slices.Sort(its)
	return its
}

// TestStepEndRestoredAdvanced: an asynchronous task of several steps
// checkpoints each step's end before its vote (stepCheckpoint). A part
// restored into the next step from that copy is advanced past it and
// starts the step there: the survivors' step after a loss, where they
// stood (issue 36). Restored into the step it ended, it resumes there;
// one whose newest checkpoint is of a later step restarts at the step's
// start, the end of the step before, advanced. Every run ends every step
// with a true residual below ε (runHeat).
func TestStepEndRestoredAdvanced(t *testing.T) {
	const run, never = "step-ends", 1 << 30 // no checkpoint but the steps' ends
	stores := []*memCopies{{}, {}}
	c := graphRun{params: map[string]string{"blocks": "2x1"}, ranks: 2, cores: 1, scheme: Asynchronous,
		checkpoint: &CheckpointPlan{Memory: true, Every: never, Run: run}, copies: []CopyStore{stores[0], stores[1]}}
	runHeat(t, c)
	ends := make([][]uint64, c.ranks) // each rank's ends of steps 1 and 2
	for r, m := range stores {
		if ends[r] = m.iterations(); len(ends[r]) != 2 {
			t.Fatalf("rank %d kept checkpoints of iterations %v, want the ends of steps 1 and 2", r, ends[r])
		}
		for _, h := range m.kept {
			if want := slices.Index(ends[r], h.Iteration); h.Step != want {
				t.Fatalf("rank %d's checkpoint of iteration %d is of step %d, want %d: taken at its end, before the vote and the advance", r, h.Iteration, h.Step+1, want+1)
			}
		}
	}
	for _, tc := range []struct {
		name  string
		step  int
		from  []uint64
		end   int    // the end restored from: of step end+1
		later uint64 // a newest checkpoint of step 3 this many iterations after the end of step 2
	}{
		{name: "next step", step: 2, from: []uint64{0, ends[1][1]}, end: 1},
		{name: "its step", step: 1, from: []uint64{ends[0][0], ends[1][0]}, end: 1},
		{name: "further on", step: 1, from: []uint64{ends[0][0], ends[1][0]}, end: 0, later: 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for r, m := range stores {
				if tc.later == 0 {
					continue
				}
				i := slices.IndexFunc(m.kept, func(h checkpoint.Header) bool { return h.Iteration == ends[r][1] })
				h, payload, err := checkpoint.Parse(m.enc[i], 1<<30)
				if err != nil {
					t.Fatal(err)
				}
				h.Step, h.Iteration = 2, h.Iteration+tc.later
				enc, err := checkpoint.Append(nil, h, payload)
				if err != nil {
					t.Fatal(err)
				}
				m.Keep(h, enc)
			}
			c.checkpoint = &CheckpointPlan{Memory: true, Every: never, Run: run, Latest: true, Step: tc.step, StepFrom: tc.from}
			res, _, _, _ := runHeat(t, c)
			for r := range res {
				if res[r].Restored != ends[r][tc.end] || res[r].RestoredStep != tc.step {
					t.Errorf("rank %d restored from iteration %d in step %d, want %d in step %d (notes %q)",
						r, res[r].Restored, res[r].RestoredStep+1, ends[r][tc.end], tc.step+1, res[r].CheckpointNotes)
				}
			}
		})
	}
}
