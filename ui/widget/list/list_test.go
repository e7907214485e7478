package list

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestListFilterSortTree(t *testing.T) {
	l := New([]Column{{Title: "Name"}, {Title: "Cores", Width: 5}})
	l.SetRows([]Row{
		{Key: "s", Cells: []string{"site"}, Level: 0},
		{Key: "a", Cells: []string{"alpha"}, Level: 1},
		{Key: "a1", Cells: []string{"alpha-1", "8"}, Level: 2, Leaf: true},
		{Key: "a2", Cells: []string{"alpha-2", "16"}, Level: 2, Leaf: true},
		{Key: "b", Cells: []string{"beta"}, Level: 1},
		{Key: "b1", Cells: []string{"beta-1", "4"}, Level: 2, Leaf: true},
	})
	keys := func() (out []string) {
		for _, i := range l.visible {
			out = append(out, l.rows[i].Key)
		}
		return out
	}
	l.filter = "beta-1"
	l.refresh()
	if got := keys(); len(got) != 3 || got[0] != "s" || got[1] != "b" || got[2] != "b1" {
		t.Errorf("filter beta-1 kept %v, want the host and its ancestors", got)
	}
	l.filter = "alpha"
	l.refresh()
	if got := keys(); len(got) != 4 {
		t.Errorf("filter alpha kept %v, want site, cluster and both hosts", got)
	}
	l.filter, l.sortCol = "", 1
	l.refresh()
	if got := keys(); len(got) != 3 || got[0] != "b1" || got[2] != "a2" {
		t.Errorf("sort by cores = %v, want leaves numerically b1, a1, a2", got)
	}
	l.desc = true
	l.refresh()
	if got := keys(); got[0] != "a2" {
		t.Errorf("reverse sort = %v, want a2 first", got)
	}
	l.cursor = 0
	l.SetRows(l.rows) // the cursor stays on the same key
	if r, _ := l.Selected(); r.Key != "a2" {
		t.Errorf("cursor moved to %s after setRows", r.Key)
	}
}

// TestListSortMarkVisible: the header of the sorted column shows its
// direction even when the title fills the column ("Cores" in 5 cells).
func TestListSortMarkVisible(t *testing.T) {
	cases := []struct {
		name string
		col  int
		desc bool
		want string
	}{
		{name: "narrow_ascending", col: 1, want: "Core▲"},
		{name: "narrow_descending", col: 1, desc: true, want: "Core▼"},
		{name: "wide_ascending", col: 0, want: "Name▲"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := New([]Column{{Title: "Name"}, {Title: "Cores", Width: 5}})
			l.SetRows([]Row{{Key: "a", Cells: []string{"alpha-1", "8"}, Leaf: true}})
			l.sortCol, l.desc = tc.col, tc.desc
			l.refresh()
			head, _, _ := strings.Cut(ansi.Strip(l.Render(0, 0, 40, 4)), "\n")
			if !strings.Contains(head, tc.want) || strings.Contains(head, "…") {
				t.Errorf("header %q, want %q and no ellipsis", head, tc.want)
			}
		})
	}
}
