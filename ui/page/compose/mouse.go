package compose

// composeDrawn is where the last frame of the Compose view drew the rows of
// its panes, for clicks: shared by the copies of the view (Update and View
// work on copies).
type composeDrawn struct {
	form, nodes, hier, predict drawnRows
	mainH                      int // the panes' height
}

// drawnRows is where a pane's rows were drawn in the body area: h rows
// from (x, y), w cells wide, the first showing row first.
type drawnRows struct {
	x, y, w, h int
	first      int
}

// record notes the panes' places: the form left (lw wide, a field a line
// under the pane's title), the nodes right from line 1 (nodesH lines), the
// hierarchy right from line hierY (hierH lines), the Predict panel's rows
// right from line predY.
func (d *composeDrawn) record(v Model, lw, rw, nodesH, hierY, hierH, predY, predH int) {
	mainH := predY + predH
	d.mainH = mainH
	d.form = drawnRows{x: 0, y: 1, w: lw, h: min(len(v.fields), mainH-1), first: formFirst(v.cursor[paneForm], mainH)}
	d.nodes = drawnRows{x: lw + 1, y: 1, w: rw, h: max(0, nodesH), first: scrollFirst(v.cursor[paneNodes], nodesH)}
	d.hier = drawnRows{x: lw + 1, y: hierY, w: rw, h: max(0, hierH), first: scrollFirst(v.cursor[paneHierarchy], hierH)}
	d.predict = drawnRows{x: lw + 1, y: predY + 1, w: rw, h: max(0, min(len(v.predictRows()), predH-1))}
}

// click focuses the pane clicked and puts its cursor on the row clicked
// (a field, a node or cluster, a group or worker); it acts on nothing.
func (v *Model) click(x, y int) {
	if v.drawn == nil {
		return
	}
	for p, d := range map[int]drawnRows{paneForm: v.drawn.form, paneNodes: v.drawn.nodes, paneHierarchy: v.drawn.hier, panePredict: v.drawn.predict} {
		if x < d.x || x >= d.x+d.w || y < d.y || y >= d.y+d.h {
			continue
		}
		if i := d.first + y - d.y; i < v.paneLen(p) {
			v.pane, v.cursor[p] = p, i
		}
		return
	}
}
