//go:build race

package compose

// raceEnabled: the race detector slows the code it instruments many times,
// so timing targets are checked only without it.
const raceEnabled = true
