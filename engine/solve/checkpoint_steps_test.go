package solve

import (
	"fmt"
	"slices"
	"strings"
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
				h.Step, h.Iteration, h.End = 2, h.Iteration+tc.later, false
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

// refusingCopies is a part's CopyStore whose buddy never takes a step's
// end (checkpoint.Header.End): Save says so (ErrNotCopied) and keeps
// only what the buddy would hold, the other checkpoints. ends counts the
// step ends it was given.
type refusingCopies struct {
	memCopies
	ends int
}

func (m *refusingCopies) Save(h checkpoint.Header, enc []byte) error {
	if h.End {
		m.mu.Lock()
		m.ends++
		m.mu.Unlock()
		return fmt.Errorf("%w: the test's buddy refuses it", ErrNotCopied)
	}
	m.Keep(h, enc)
	return nil
}

// TestStepEndNotKept: a part whose buddy does not keep its copy of a
// step's end sends it once more, then notes it and votes (the run goes on
// and ends well); its other checkpoints go on. Before, the writer closed
// kept whatever the outcome and the part voted silently, as if its step's
// end were held.
func TestStepEndNotKept(t *testing.T) {
	stores := []CopyStore{&memCopies{}, &refusingCopies{}}
	c := graphRun{params: map[string]string{"blocks": "2x1"}, ranks: 2, cores: 1, scheme: Asynchronous,
		checkpoint: &CheckpointPlan{Memory: true, Every: 5, Run: "not-kept"}, copies: stores}
	res, _, _, _ := runHeat(t, c)
	r1 := stores[1].(*refusingCopies)
	if r1.ends != 4 {
		t.Errorf("rank 1's step ends were sent %d times, want 4 (steps 1 and 2, each once more)", r1.ends)
	}
	notes := strings.Join(res[1].CheckpointNotes, "; ")
	if strings.Count(notes, "is not kept on the buddy") != 2 || !strings.Contains(notes, "refuses") {
		t.Errorf("rank 1's notes %q: want both step ends said not kept, and why", notes)
	}
	if strings.Contains(notes, "stopped") || len(r1.iterations()) == 0 {
		t.Errorf("rank 1's checkpoints stopped (notes %q, kept %v)", notes, r1.iterations())
	}
	if n := strings.Join(res[0].CheckpointNotes, "; "); strings.Contains(n, "not kept") {
		t.Errorf("rank 0's notes %q: its step ends were kept", n)
	}
	ends := 0
	for _, h := range stores[0].(*memCopies).kept {
		if h.End {
			ends++
		}
	}
	if ends != 2 {
		t.Errorf("rank 0 kept %d copies marked as a step's end, want 2", ends)
	}
}

// TestRestoreStepNeverUnfinished: a copy of the step before the plan's is
// advanced into the plan's step only when it is that step's end
// (checkpoint.Header.End), whether the part's start of the step is known
// or not (StepFrom 0). Before, with the start unknown, any copy of the
// step before was advanced: an unfinished time step.
func TestRestoreStepNeverUnfinished(t *testing.T) {
	mid := checkpoint.Header{Run: "r", Rank: 1, Ranks: 2, Step: 1, Iteration: 500}
	end := mid
	end.End = true
	for _, tc := range []struct {
		name    string
		h       checkpoint.Header
		from    uint64
		advance bool
	}{
		{"end, start unknown", end, 0, true},
		{"end, start known", end, 500, true},
		{"unfinished, start unknown", mid, 0, false},
		{"unfinished, start known", mid, 500, false},
		{"end, another start", end, 520, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &solver{}
			s.t.Rank = 1
			c := &checkpointer{plan: CheckpointPlan{Latest: true, Step: 2, StepFrom: []uint64{0, tc.from}}}
			_, payload, advance, err := s.restoreStep(c, mid, tc.h, []byte("state"))
			if tc.advance && (err != nil || !advance || payload == nil) {
				t.Fatalf("advance %v, %v: want advanced", advance, err)
			}
			if !tc.advance && (err == nil || advance) {
				t.Fatalf("advance %v, %v: want refused", advance, err)
			}
		})
	}
	// The start of the step loaded for a part further on: the same rule.
	m := &memCopies{}
	for _, h := range []checkpoint.Header{mid, {Run: "r", Rank: 1, Ranks: 2, Step: 2, Iteration: 600}} {
		enc, err := checkpoint.Append(nil, h, []byte("state"))
		if err != nil {
			t.Fatal(err)
		}
		m.Keep(h, enc)
	}
	s := &solver{}
	s.t.Rank = 1
	c := &checkpointer{plan: CheckpointPlan{Latest: true, Step: 2, StepFrom: []uint64{0, 500}}, copies: m}
	newest := checkpoint.Header{Run: "r", Rank: 1, Ranks: 2, Step: 3, Iteration: 700}
	if _, _, advance, err := s.restoreStep(c, checkpoint.Header{Run: "r", Rank: 1, Ranks: 2}, newest, []byte("state")); err == nil || advance {
		t.Fatalf("an unfinished start of the step: advance %v, %v, want refused", advance, err)
	}
}
