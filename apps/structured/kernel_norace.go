//go:build !race

package structured

const raceEnabled = false
