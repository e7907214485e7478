package solve

import (
	"errors"
	"testing"
)

// runTokenChain drives ranks detectors in lockstep as the synchronous scheme
// does, with local(r, k) as rank r's test at iteration k, and returns the stop
// iteration of every rank.
func runTokenChain(t *testing.T, ranks, maxIter int, local func(r, k int) bool) []int {
	t.Helper()
	det := make([]*ConvergenceTokens, ranks)
	for r := range det {
		var err error
		if det[r], err = NewConvergenceTokens(r, ranks, maxIter); err != nil {
			t.Fatal(err)
		}
	}
	convSent := make([]*ConvToken, ranks) // sent by r in the previous iteration
	termSent := make([]*TermToken, ranks)
	stopped := make([]int, ranks)
	for k := 1; k < 10000; k++ {
		nextConv := make([]*ConvToken, ranks)
		nextTerm := make([]*TermToken, ranks)
		live := 0
		for r := range ranks {
			if stopped[r] != 0 {
				continue
			}
			live++
			var conv ConvToken
			var term TermToken
			if det[r].Receives(k) {
				if r > 0 {
					if convSent[r-1] == nil {
						t.Fatalf("rank %d iteration %d: no tok_conv from rank %d to read", r, k, r-1)
					}
					conv, convSent[r-1] = *convSent[r-1], nil
				}
				if r < ranks-1 {
					if termSent[r+1] == nil {
						t.Fatalf("rank %d iteration %d: no tok_term from rank %d to read", r, k, r+1)
					}
					term, termSent[r+1] = *termSent[r+1], nil
				}
			}
			c, tm, send, stop, err := det[r].Step(k, local(r, k), conv, term)
			if err != nil {
				t.Fatal(err)
			}
			if send && r < ranks-1 {
				nextConv[r] = &c
			}
			if send && r > 0 {
				nextTerm[r] = &tm
			}
			if stop {
				stopped[r] = k
			}
		}
		if live == 0 {
			break
		}
		for r := range ranks {
			if (convSent[r] != nil || termSent[r] != nil) && stopped[r] == 0 {
				t.Fatalf("token of rank %d left unread", r)
			}
			convSent[r], termSent[r] = nextConv[r], nextTerm[r]
		}
	}
	for r := range ranks {
		if convSent[r] != nil || termSent[r] != nil {
			t.Fatalf("token of rank %d left unread at the end", r)
		}
	}
	return stopped
}

func TestConvergenceTokensStopTogether(t *testing.T) {
	tests := map[string]struct {
		ranks, maxIter int
		local          func(r, k int) bool
		want           int
	}{
		"one rank":            {1, 0, func(r, k int) bool { return k >= 7 }, 7},
		"two ranks":           {2, 0, func(r, k int) bool { return k >= 7 }, 9},
		"four ranks, skewed":  {4, 0, func(r, k int) bool { return k >= 10+r }, 13 + 6},
		"local tests flicker": {3, 0, func(r, k int) bool { return k >= 5 && !(r == 1 && k <= 8) && !(r == 2 && k == 9) }, 10 + 4},
		"only the AND counts": {3, 0, func(r, k int) bool { return (r == 0 && k%2 == 0) || (r == 1 && k%3 == 0) || (r == 2 && k >= 20) }, 24 + 4},
		"max iterations":      {3, 12, func(r, k int) bool { return false }, 12},
		"max before the term": {4, 9, func(r, k int) bool { return k >= 5 }, 9},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			stopped := runTokenChain(t, tc.ranks, tc.maxIter, tc.local)
			for r, k := range stopped {
				if k != tc.want {
					t.Fatalf("rank %d stopped after %d iterations, want %d (all: %v)", r, k, tc.want, stopped)
				}
			}
		})
	}
}

func TestConvergenceTokensRejectsWrongIteration(t *testing.T) {
	d, err := NewConvergenceTokens(2, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, _, err := d.Step(5, true, ConvToken{Iter: 4, OK: true}, TermToken{}); !errors.Is(err, ErrTermination) {
		t.Fatalf("err %v, want ErrTermination", err)
	}
	if _, err := NewConvergenceTokens(4, 4, 0); err == nil {
		t.Fatal("rank 4 of 4 accepted")
	}
}

// TestConvergenceTokensOnTrees runs the tokens on spanning trees of other
// graphs than a chain (a 2×2 block grid, a star, a 3×2 grid rooted at the
// last rank, as the synchronous scheme roots them): every rank stops after
// the same iteration, first+H+D, where first is the first iteration at which
// every local test holds, H the root's height and D the tree's depth.
func TestConvergenceTokensOnTrees(t *testing.T) {
	grid := func(a, b int) [][]int {
		g := make([][]int, a*b)
		for i := range a {
			for j := range b {
				r := i*b + j
				for _, d := range [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
					if x, y := i+d[0], j+d[1]; x >= 0 && x < a && y >= 0 && y < b {
						g[r] = append(g[r], x*b+y)
					}
				}
			}
		}
		return g
	}
	star := [][]int{{1, 2, 3, 4}, {0}, {0}, {0}, {0}}
	for name, g := range map[string][][]int{"2x2": grid(2, 2), "3x2": grid(3, 2), "star": star, "chain": chainGraph(4)} {
		t.Run(name, func(t *testing.T) {
			n := len(g)
			tree := newSpanningTree(g, n-1)
			local := func(r, k int) bool { return k >= 10+r%3 && !(r == 1 && k == 14) }
			first := 12 // the first iteration at which every local test holds
			want := first + tree.height[n-1] + tree.maxDepth()
			det := make([]*ConvergenceTokens, n)
			for r := range n {
				var hs []int
				for _, c := range tree.children[r] {
					hs = append(hs, tree.height[c])
				}
				det[r] = NewTreeTokens(tree.height[r], hs, r == n-1, tree.maxDepth(), 0)
			}
			conv := make([]ConvToken, n) // sent by r in the previous iteration
			term := make([]TermToken, n)
			stopped := make([]int, n)
			for k := 1; k < 200; k++ {
				nextConv, nextTerm := make([]ConvToken, n), make([]TermToken, n)
				for r := range n {
					if stopped[r] != 0 {
						continue
					}
					var convs []ConvToken
					var tm TermToken
					if det[r].Receives(k) {
						for _, c := range tree.children[r] {
							convs = append(convs, conv[c])
						}
						if p := tree.parent[r]; p >= 0 {
							tm = term[p]
						}
					} else {
						convs = make([]ConvToken, len(tree.children[r]))
					}
					c, tmOut, _, stop, err := det[r].StepTree(k, local(r, k), convs, tm)
					if err != nil {
						t.Fatalf("rank %d iteration %d: %v", r, k, err)
					}
					nextConv[r], nextTerm[r] = c, tmOut
					if stop {
						stopped[r] = k
					}
				}
				conv, term = nextConv, nextTerm
			}
			for r, k := range stopped {
				if k != want {
					t.Fatalf("rank %d stopped after %d, want %d (all %v)", r, k, want, stopped)
				}
			}
		})
	}
}
