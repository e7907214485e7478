package cli

import "github.com/gridtui/gridtui/engine"

// checksOK is runJob's test of a checked run's solution: the obstacle
// problem's complementarity, another application's figures. Once the
// obstacle problem reports through FiguresOK like every application, this
// is rep.FiguresOK alone.
func checksOK(rep *engine.Report) bool {
	if rep.Spec.App == "obstacle" {
		return rep.Complementarity.OK
	}
	return rep.FiguresOK
}
