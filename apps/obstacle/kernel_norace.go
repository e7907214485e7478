//go:build !race

package obstacle

const raceEnabled = false
