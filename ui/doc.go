// Package ui is the Bubble Tea console: one root model (Model, built by New
// from a Config) holds its pages in a slice in tab order — Sites, Network,
// Compose, Run, Results, each a common.Page —, hands each the same Common
// value (size, styles, keys, logger, context; ui/common), routes input to
// the page in front and every other message to every page, so that pages
// affect each other through messages (the Results page's
// results.LoadedMsg feeds Compose's Predict panel). Every page is a
// package under ui/page (sites, network, compose, run, results); adding
// one is a package there and one line in New. The
// widgets — ui/widget/list, pager, chart, prompt — have their own Model,
// KeyMap and Styles; common.NewList and common.NewPager give them the
// console's. Pages are rendered from plain data (inventory.Inventory,
// probe.Htable, engine.Snapshot and, once a run ends, its engine.Report's
// final node states, jobs.Results), which is what the golden tests under
// testdata/ feed them. Side effects (deploying, probing with grid.Probe,
// running jobs with engine.Run, reading the results store, saving job files
// with jobs.SaveSpec) are commands that come back as typed messages: Update
// never does I/O, and run telemetry is drained on a ≤ 10 Hz tick so a
// 1024-node run cannot flood it. Each page binds its keys through a key map
// of key.Bindings (KeyMap for the console-wide ones, sitesKeyMap and the like
// for a page's, each a help.KeyMap enabled for the page's state): the help
// bar and the full help are drawn from the bindings the page matches, so a
// key is listed where it acts. Every list opens the row
// under the cursor in a detail view (enter: the whole row, wrapped, copyable),
// and a click selects a row. The Network view shows each pair of the job as
// the last run linked it: a pair that pre-flight sent through the sites'
// gateways reads "via gateway G1 ↔ G2" or "via SSH tunnel G1 ↔ G2" and why
// (network_via.go), and the Run view shows each gateway link's counters.
//
// Compose (ui/page/compose) builds its form from the registered applications (apps/gridapp):
// one field per declared parameter, each checked as `gridtui run --param`
// checks it, and has the application define the task on the chosen nodes,
// whose neighbour graph gives the job's pairs; a job name still automatic
// follows the application chosen, and the Run view's header names the
// application with its size and the parameters set away from their
// defaults. Compose's Predict panel asks
// package predict for every scheme's outlook in a command, after a short
// debounce and for the newest request only, so that the replay of a large
// job never blocks the UI goroutine.
package ui
