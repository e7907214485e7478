// Package ui is the Bubble Tea console: one root model that routes messages to
// plain view structs (Sites, Network, Compose, Run, Results). It turns events from
// the packages below into messages and never performs I/O inside Update.
package ui
