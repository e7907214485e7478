package solve

// spanningTree is a breadth-first spanning tree of a task's neighbour graph,
// as every worker computes it from the same graph: the detectors' messages
// travel along it (convergence tokens and section votes up to the root,
// termination down; the activity graph's initial tree). Neighbours are
// visited in the order the application lists them, so the tree is the same
// on every worker. On a chain rooted at an end it is the chain itself.
type spanningTree struct {
	root     int
	parent   []int   // parent rank, −1 at the root
	children [][]int // children ranks, in visiting order
	depth    []int   // distance from the root
	height   []int   // height of the subtree: 0 at a leaf
}

// newSpanningTree builds the BFS tree of graph (neighbour ranks per rank,
// connected, as gridapp.CheckGraph ensures) rooted at root.
func newSpanningTree(graph [][]int, root int) *spanningTree {
	n := len(graph)
	t := &spanningTree{root: root, parent: make([]int, n), children: make([][]int, n),
		depth: make([]int, n), height: make([]int, n)}
	for i := range t.parent {
		t.parent[i] = -2 // unvisited
	}
	t.parent[root] = -1
	order := []int{root}
	for i := 0; i < len(order); i++ {
		r := order[i]
		for _, q := range graph[r] {
			if t.parent[q] == -2 {
				t.parent[q], t.depth[q] = r, t.depth[r]+1
				t.children[r] = append(t.children[r], q)
				order = append(order, q)
			}
		}
	}
	for i := len(order) - 1; i > 0; i-- {
		r := order[i]
		p := t.parent[r]
		t.height[p] = max(t.height[p], t.height[r]+1)
	}
	return t
}

// maxDepth returns the largest distance from the root.
func (t *spanningTree) maxDepth() int {
	d := 0
	for _, x := range t.depth {
		d = max(d, x)
	}
	return d
}

// chainGraph is the neighbour graph of a chain of ranks.
func chainGraph(ranks int) [][]int {
	g := make([][]int, ranks)
	for r := range g {
		if r > 0 {
			g[r] = append(g[r], r-1)
		}
		if r < ranks-1 {
			g[r] = append(g[r], r+1)
		}
	}
	return g
}

// TreeView is what one rank needs of a spanning tree of the task's graph
// (the detectors' tree, computed once at the submitter): its parent (−1 at
// the root), its children in visiting order with their subtrees' heights,
// its own subtree's height and the tree's depth (largest distance from the
// root).
type TreeView struct {
	Parent   int
	Children []int `json:",omitempty"`
	Heights  []int `json:",omitempty"`
	Height   int   `json:",omitempty"`
	Depth    int   `json:",omitempty"`
}

// view returns rank r's view of t, whose depth (maxDepth) is depth.
func (t *spanningTree) view(r, depth int) TreeView {
	v := TreeView{Parent: t.parent[r], Children: t.children[r], Height: t.height[r], Depth: depth}
	for _, c := range v.Children {
		v.Heights = append(v.Heights, t.height[c])
	}
	return v
}
