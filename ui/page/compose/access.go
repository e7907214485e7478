package compose

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/predict"
	"github.com/gridtui/gridtui/probe"
)

// The page's state as the root and the console's tests read and set it.

// JobFileComment heads the job files Compose saves (the root writes them).
const JobFileComment = "gridtui job file, written by the console's Compose view"

// Status returns the page's status line: what the last action did.
func (v *Model) Status() string { return v.status }

// EditBuffer returns the text of the field being edited.
func (v *Model) EditBuffer() string { return v.input.Value() }

// Htable returns the network table the page plans the job with.
func (v *Model) Htable() *probe.Htable { return v.htable }

// Chosen returns the hosts the job takes.
func (v *Model) Chosen() []inventory.Host { return v.chosen() }

// Predicted returns the Predict panel's last outlook (nil: none).
func (v *Model) Predicted() *predict.Outlook { return v.fc.out }

// Picked reports whether host is ticked in the Nodes pane.
func (v *Model) Picked(host string) bool { return v.picked[host] }

// Pick ticks (on) or unticks hosts in the Nodes pane and checks the job
// again.
func (v *Model) Pick(on bool, hosts ...string) {
	for _, h := range hosts {
		v.picked[h] = on
	}
	v.validate()
}

// ClearNodes unticks every host and sets "any N" to 0, and checks the job
// again.
func (v *Model) ClearNodes() {
	v.picked, v.field(fAny).Value = map[string]bool{}, "0"
	v.validate()
}

// formField returns the form field of a job-file key ("file" is the job
// file's path; see keyField).
func (v *Model) formField(key string) *field {
	if key == "file" {
		return v.field(fFile)
	}
	if id, ok := v.keyField(key); ok {
		return v.field(id)
	}
	return nil
}

// SetValue sets the form field of a job-file key ("max_iterations",
// "nodes.any", "params.n", or "file" for the job file's path) and checks
// the job again. It fails for a key the form has no field for.
func (v *Model) SetValue(key, value string) error {
	f := v.formField(key)
	if f == nil {
		return fmt.Errorf("compose: no form field for %q", key)
	}
	f.Value = value
	v.validate()
	return nil
}

// Value returns the value of the form field of a job-file key ("" and
// false for a key the form has no field for).
func (v *Model) Value(key string) (string, bool) {
	if f := v.formField(key); f != nil {
		return f.Value, true
	}
	return "", false
}

// Row returns the form row of the field of a job-file key (-1: none).
func (v *Model) Row(key string) int {
	if f := v.formField(key); f != nil {
		return v.row(f.ID)
	}
	return -1
}

// Focus says which pane is in focus and where its cursor is: "form 3",
// "nodes 7", "hierarchy alpha-3" (the worker under the cursor; the
// submitter's row is "hierarchy "), "predict 0".
func (v *Model) Focus() string {
	c := v.cursor[v.pane]
	switch v.pane {
	case paneForm:
		return fmt.Sprint("form ", c)
	case paneNodes:
		return fmt.Sprint("nodes ", c)
	case paneHierarchy:
		rows := v.hierRows()
		if c < len(rows) {
			return "hierarchy " + rows[c].worker
		}
		return "hierarchy"
	}
	return fmt.Sprint("predict ", c)
}

// IsPredictTick reports whether msg ends the Predict panel's debounce: a
// command loop in a test skips the ticks, which would go on forever.
func IsPredictTick(msg tea.Msg) bool {
	_, ok := msg.(predictTickMsg)
	return ok
}
