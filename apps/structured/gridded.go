package structured

import "github.com/gridtui/gridtui/apps/gridapp"

// GridShape makes every toolkit application gridapp.Gridded, so that a
// job's --out writes its solution as VTI and raw files with no code of the
// application's: the grid's points per axis (x first, the slowest axis of
// the solution's order), its Origin and Spacing. A Series adds the steps'
// levels as a first axis before a grid of one or two axes (level s at
// origin s, spacing 1); a three-axis Series has no fourth axis to put them
// on, so only its grid is said (the files then refuse the solution's
// size: such an application writes its files itself, gridapp.Outputter).
// A Setup that fails gives an empty grid (Define refused the job before).
func (a *App) GridShape(v gridapp.Values) gridapp.Grid {
	s, err := a.Setup(v)
	if err != nil {
		return gridapp.Grid{}
	}
	var g gridapp.Grid
	axes := s.Grid.N
	off := 0
	if s.Series && len(axes) < 3 {
		g.Shape[0], g.Spacing[0] = max(s.Steps, 1), 1
		off = 1
	}
	for a := range 3 - off {
		g.Shape[off+a], g.Spacing[off+a] = 1, 1
		if a < len(axes) {
			g.Shape[off+a] = axes[a]
		}
		if a < len(s.Grid.Origin) {
			g.Origin[off+a] = s.Grid.Origin[a]
		}
		if a < len(s.Grid.Spacing) && s.Grid.Spacing[a] != 0 {
			g.Spacing[off+a] = s.Grid.Spacing[a]
		}
	}
	return g
}
