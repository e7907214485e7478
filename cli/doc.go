// Package cli is gridtui's command line: the console, the headless runner,
// deploy, probe, results, predict, bench and the worker a launcher starts on
// each node. cmd/gridtui is a two-line main around Main.
//
// gridtui is also a library. A scientist's own module registers its
// applications and hands control to Main, and the binary it builds is a
// complete gridtui carrying those applications (see examples/ and
// docs/APPLICATIONS.md):
//
//	func main() {
//		gridapp.Register("rod", rod{})
//		cli.Main()
//	}
package cli
