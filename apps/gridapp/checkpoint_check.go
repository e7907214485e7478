package gridapp

import (
	"bytes"
	"fmt"
	"math"
)

// CheckCheckpoints tests an application's Checkpointer as the environment
// relies on it: it runs the task in this process (RunLocal's synchronous
// semantics) without interruption, then again with a stop after at
// iterations where every part writes a checkpoint, is closed, and a fresh
// part built by NewPart (with one core, whatever the nodes said) restores it
// and continues. The two runs must do the same number of iterations and
// give the same solution bit for bit; the error says where they differ. Every
// application's tests call it (apps/poisson is the example); so should the
// tests of a toolkit whose parts implement Checkpointer for their users.
func CheckCheckpoints(app Application, v Values, nodes []Node, at int) error {
	want, err := RunLocal(app, v, nodes)
	if err != nil {
		return fmt.Errorf("gridapp: uninterrupted run: %w", err)
	}
	if at < 1 || at >= want.Iterations {
		return fmt.Errorf("gridapp: checkpoint after %d iterations: the run does %d", at, want.Iterations)
	}
	t, err := app.Define(v, nodes)
	if err != nil {
		return err
	}
	parts, err := newLocalParts(app, v, t, nodes)
	defer func() { closeParts(parts) }()
	if err != nil {
		return err
	}
	d := newLocalDrive(t)
	if paused, err := d.drive(t, parts, at); err != nil || !paused {
		return fmt.Errorf("gridapp: run to iteration %d: paused %v: %v", at, paused, err)
	}
	saved := make([][]byte, len(parts))
	for r, p := range parts {
		c, ok := p.(Checkpointer)
		if !ok {
			return fmt.Errorf("gridapp: part %d (%T) does not implement Checkpointer", r, p)
		}
		var buf bytes.Buffer
		if err := c.Checkpoint(&buf); err != nil {
			return fmt.Errorf("gridapp: part %d: checkpoint: %w", r, err)
		}
		saved[r] = buf.Bytes()
	}
	closeParts(parts)
	one := make([]Node, len(nodes))
	for i, n := range nodes {
		n.Cores = 1
		one[i] = n
	}
	if parts, err = newLocalParts(app, v, t, one); err != nil {
		return err
	}
	for r, p := range parts {
		rd := bytes.NewReader(saved[r])
		if err := p.(Checkpointer).Restore(rd); err != nil {
			return fmt.Errorf("gridapp: part %d: restore: %w", r, err)
		}
		if rd.Len() != 0 {
			return fmt.Errorf("gridapp: part %d: restore left %d of %d bytes unread", r, rd.Len(), len(saved[r]))
		}
	}
	d.guards = newLocalDrive(t).guards // the new parts' halos
	if _, err := d.drive(t, parts, 0); err != nil {
		return err
	}
	got, err := d.finish(app, v, t, parts)
	if err != nil {
		return err
	}
	return sameRun(want, got)
}

// sameRun compares two local runs bit for bit.
func sameRun(want, got LocalRun) error {
	if got.Iterations != want.Iterations || got.Converged != want.Converged {
		return fmt.Errorf("gridapp: restored run: %d iterations (converged %v), uninterrupted %d (%v)",
			got.Iterations, got.Converged, want.Iterations, want.Converged)
	}
	a, b := want.Result.Solution, got.Result.Solution
	if len(a) != len(b) {
		return fmt.Errorf("gridapp: restored run: %d values, uninterrupted %d", len(b), len(a))
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return fmt.Errorf("gridapp: restored run: value %d is %v, uninterrupted %v", i, b[i], a[i])
		}
	}
	return nil
}
