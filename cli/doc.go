// Package cli is gridtui's command line, one file per subcommand: the
// console, run, apps, sites, deploy, probe, results, logs, predict, bench,
// completion and version, and the hidden commands started on grid hosts
// (worker on each node, gateway on a site's gateway host, relay on the host
// that passes the binary on to its site). cmd/gridtui is a two-line main
// around Main.
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
