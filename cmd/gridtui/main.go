// Command gridtui is a terminal console for running iterative solvers across
// grid sites: it deploys workers over SSH, probes their networks, composes jobs
// and watches them run. The commands live in package cli, so that a user's own
// module can build the same binary with its applications registered.
package main

import "github.com/gridtui/gridtui/cli"

func main() { cli.Main() }
